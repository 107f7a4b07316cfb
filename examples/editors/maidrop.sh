# Mai agent shell function: source this file, then 'maidrop FILE...'.
# Submits each file, prints the outcome, returns the worst exit status
# (0 ran ok, 1 failed run, 6 held, 7 rejected, 8 no answer).
maidrop() {
	if [ $# -eq 0 ]; then
		echo "usage: maidrop FILE.py..." >&2
		return 2
	fi
	_mai_worst=0
	for _mai_f in "$@"; do
		mai-agent submit "$_mai_f"
		_mai_rc=$?
		[ $_mai_rc -gt $_mai_worst ] && _mai_worst=$_mai_rc
	done
	return $_mai_worst
}
