# expect: level HIGH, state awaiting_confirmation (an approver's high_eval.approve runs it)
# eval of text from the environment (data from outside the script run as code): the agent waits for a person to confirm.
import os

expr = "2" + " + " + "3"
print(eval(os.environ.get("MAI_EXAMPLE_EXPR", expr)))
