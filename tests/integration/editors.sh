#!/bin/sh
# The editor hooks in examples/editors/ for real: a real agent watches a temp
# drop directory; vim, neovim and emacs each run headless, load the hook,
# save a .py file, and the hook's 'mai-agent submit' must leave a result
# sidecar with the expected state. The git pre-commit hook is tried in a temp
# repository. A HIGH script is used so no container has to run: the agent
# answers awaiting_confirmation as soon as it has assessed the file.
# Exit 77 when an editor or the agent's Docker is missing, unless
# MAI_REQUIRE_REAL=1.
set -u
AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
W=$(mktemp -d "${TMPDIR:-/tmp}/mai-editors.XXXXXX")
fails=0
skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then echo "FAIL: $*" >&2; exit 1; fi
	echo "SKIP: $*" >&2
	exit 77
}
. "$SRC/tests/integration/agent_start.sh"
cleanup() {
	agent_stop
	rm -rf "$W"
}
trap cleanup EXIT
for e in vim nvim emacs git; do
	command -v $e > /dev/null || skip "$e is not installed (packaging/install-deps.sh installs it)"
done

# The hooks call 'mai-agent' from PATH and find the agent through MAI_CONFIG_DIR.
mkdir -p "$W/bin" "$W/work"
ln -s "$AGENT" "$W/bin/mai-agent"
PATH="$W/bin:$PATH"
export PATH
agent_setup "$W" || exit 1
agent_start_or_skip "$W"

# expect_state NAME STATE: the sidecar the hook's submit waited for.
expect_state() {
	r="$W/drop/$1.result.json"
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("state",""))' "$r" 2>/dev/null)
	[ "$got" = "$2" ] || { echo "FAIL: $3: $r has state '$got', expected '$2'" >&2; fails=$((fails + 1)); }
}
# new_script NAME: a HIGH script (eval) in the editor's working directory.
new_script() {
	sed "s/expr = \"2\"/expr = \"$1\"/" "$SRC/examples/scripts/high_eval.py" > "$W/work/$1.py"
}

new_script from_vim
timeout 60 vim -Nu NONE -i NONE -Es -c "source $SRC/examples/editors/mai.vim" \
	-c 'normal! Go# saved by vim' -c 'write' -c 'qall!' "$W/work/from_vim.py" < /dev/null
expect_state from_vim awaiting_confirmation "vim BufWritePost"

new_script from_nvim
timeout 60 nvim --headless -u NONE -i NONE -c "luafile $SRC/examples/editors/mai.lua" \
	-c 'normal! Go# saved by neovim' -c 'write' -c 'qall!' "$W/work/from_nvim.py" < /dev/null > /dev/null 2>&1
expect_state from_nvim awaiting_confirmation "neovim Lua autocmd"

new_script from_emacs
timeout 60 emacs --batch -Q -l "$SRC/examples/editors/mai.el" "$W/work/from_emacs.py" \
	--eval '(progn (goto-char (point-max)) (insert "# saved by emacs\n") (save-buffer))' > /dev/null 2>&1
expect_state from_emacs awaiting_confirmation "emacs after-save-hook"

# The shell function and example scripts through the real agent: the exit
# status of 'maidrop' and the final state in each sidecar.
. "$SRC/examples/editors/maidrop.sh"
# maidrop_expect SCRIPT RC STATE [EXIT_CODE]
maidrop_expect() {
	cp "$SRC/examples/scripts/$1.py" "$W/work/"
	(cd "$W/work" && maidrop "$1.py") > /dev/null 2>&1
	rc=$?
	[ $rc -eq "$2" ] || { echo "FAIL: maidrop $1.py exited $rc, expected $2" >&2; fails=$((fails + 1)); }
	expect_state "$1" "$3" "maidrop $1.py"
	if [ $# -ge 4 ]; then
		code=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("exit_code",""))' "$W/drop/$1.result.json" 2>/dev/null)
		[ "$code" = "$4" ] || { echo "FAIL: $1: exit_code '$code', expected $4" >&2; fails=$((fails + 1)); }
	fi
}
maidrop_expect low_hello 0 completed 0
maidrop_expect exit_nonzero 1 completed 3
maidrop_expect blocked_decode_exec 6 blocked

# git pre-commit: HIGH refused with the finding shown, LOW committed.
R="$W/repo"
git init -q "$R" && git -C "$R" config user.email t@example.invalid && git -C "$R" config user.name t
cp "$SRC/examples/editors/pre-commit" "$R/.git/hooks/pre-commit"
cp "$SRC/examples/scripts/high_eval.py" "$SRC/examples/scripts/low_hello.py" "$R/"
git -C "$R" add high_eval.py
if git -C "$R" commit -qm high > "$W/hook.out" 2>&1; then
	echo "FAIL: pre-commit let a HIGH file through" >&2; fails=$((fails + 1))
fi
grep -q "pre-commit: high_eval.py is HIGH; commit refused" "$W/hook.out" ||
	{ echo "FAIL: pre-commit refusal message: $(cat "$W/hook.out")" >&2; fails=$((fails + 1)); }
git -C "$R" rm -q --cached high_eval.py
git -C "$R" add low_hello.py
git -C "$R" commit -qm low > "$W/hook.out" 2>&1 ||
	{ echo "FAIL: pre-commit refused a LOW file: $(cat "$W/hook.out")" >&2; fails=$((fails + 1)); }

[ $fails -eq 0 ] || { tail -20 "$W/agent.log" >&2; exit 1; }
echo "ok: vim, neovim and emacs hooks left awaiting_confirmation sidecars; pre-commit refused HIGH, passed LOW"
