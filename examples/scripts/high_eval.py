# expect: level HIGH, state awaiting_confirmation (an approver's high_eval.approve runs it)
# eval of a computed string: the agent waits for a person to confirm.
expr = "2" + " + " + "3"
print(eval(expr))
