# expect: MEDIUM
# rules: MAI009
import sh
sh.ls('-l')
from sh import git
git('status')
