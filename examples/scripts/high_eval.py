# expect: level HIGH, state awaiting_confirmation (write high_eval.approve to run it)
# eval of a computed string: the agent waits for a person to confirm.
expr = "2" + " + " + "3"
print(eval(expr))
