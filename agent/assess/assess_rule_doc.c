/* The documentation of the built-in rules (assess_rule_doc.h). One entry per
 * id of assess_rules.yaml; test_assess checks that none is missing. */
#include <string.h>

#include "assess_rule_doc.h"
#include "macro.h"

#define RUN_REVIEWED " Run it only after reading what it does: a HIGH script waits for 'mai-agent approve', a BLOCKED one for 'mai-agent override --reason'."

static const struct assess_rule_doc docs[] = {
	{ "MAI001", "shell-command",
	  "Calls os.system, os.popen or commands.getoutput, which hand a command line to the shell. Whatever the script builds into that line runs as a shell command, with the shell's expansions and redirections.",
	  "Run the program with subprocess.run([...]) and a list of arguments instead of a command string, or remove the call." RUN_REVIEWED },
	{ "MAI002", "process-without-shell",
	  "Replaces or starts a process through os.exec*, os.spawn*, os.posix_spawn or os.startfile: the script runs another program.",
	  "Check which program is started and with which arguments; remove the call when the script does not need another program." RUN_REVIEWED },
	{ "MAI003", "fork",
	  "Forks the interpreter (os.fork, os.forkpty, multiprocessing.Process): the script creates processes of its own.",
	  "Use threads or a single process where possible; the sandbox caps the number of processes either way." RUN_REVIEWED },
	{ "MAI004", "fork-in-loop",
	  "Forks inside a loop, the pattern of a fork bomb that exhausts the process table. A finding makes the script BLOCKED whatever its score.",
	  "Bound the number of processes explicitly (a pool of fixed size) instead of forking in a loop." RUN_REVIEWED },
	{ "MAI005", "subprocess-shell-true",
	  "Calls a subprocess function with shell=True, so its command goes through /bin/sh with all its expansions; text from elsewhere in that command becomes shell code.",
	  "Pass a list of arguments and drop shell=True." RUN_REVIEWED },
	{ "MAI006", "subprocess",
	  "Starts another program with the subprocess module.",
	  "Check that the program and its arguments are fixed and expected; remove the call when the script does not need another program." RUN_REVIEWED },
	{ "MAI007", "pty-asyncio-process",
	  "Starts a process through pty.spawn, pty.fork or asyncio's subprocess functions, ways to run programs that simple searches for subprocess miss.",
	  "Check the program started; prefer subprocess.run with a list of arguments, which reviewers recognise." RUN_REVIEWED },
	{ "MAI008", "process-module-import",
	  "Imports subprocess, pty or multiprocessing. The import alone does nothing; it is reported so that a reader knows the script may start processes.",
	  "Nothing to do when the module is used as intended; remove an unused import." },
	{ "MAI010", "eval",
	  "Calls eval(), which runs a Python expression given as text; text that comes from input, files or the network becomes code.",
	  "Parse data with ast.literal_eval, json or int() instead of evaluating it." RUN_REVIEWED },
	{ "MAI011", "exec",
	  "Calls exec(), which runs Python statements given as text; the code that runs is not the code a reader sees.",
	  "Write the code out in the script instead of executing text." RUN_REVIEWED },
	{ "MAI012", "runtime-code",
	  "Compiles or runs code built while the script runs (compile, code.interact, runpy), so the code that runs is not the code that was assessed.",
	  "Import the module or write the code out instead of compiling it at run time." RUN_REVIEWED },
	{ "MAI013", "computed-name",
	  "Imports a module or takes an attribute whose name is computed at run time (importlib, __import__, getattr with a variable), which hides what the script uses.",
	  "Import modules and use attributes by their literal names." RUN_REVIEWED },
	{ "MAI014", "hidden-call",
	  "Calls a process, code, file, network or native-code function through a name built from strings, getattr, __import__, globals(), sys.modules, exec'd text or look-alike Unicode characters: a way to hide the call from a reader. A finding makes the script BLOCKED.",
	  "Call the function by its plain name so that a reader and the assessor see it." RUN_REVIEWED },
	{ "MAI015", "decode-exec",
	  "Decodes data (base64, zlib, codecs, hex, marshal) and runs the result as code: the code that runs is hidden in the data. A finding makes the script BLOCKED.",
	  "Ship the code itself, not an encoded form of it." RUN_REVIEWED },
	{ "MAI016", "interpreter-internals",
	  "Walks interpreter internals (__subclasses__, __globals__, __builtins__ of frames) to reach objects nobody imported, the usual escape from a restricted namespace. A finding makes the script BLOCKED.",
	  "Import what the script uses instead of reaching it through internals." RUN_REVIEWED },
	{ "MAI017", "builtins-modified",
	  "Replaces a builtin with setattr, which changes what every later call of that name does. A finding makes the script BLOCKED.",
	  "Define a function of its own name instead of replacing a builtin." RUN_REVIEWED },
	{ "MAI018", "source-encoding",
	  "Declares a source encoding that can hide code (one in which the bytes a reader sees decode to other characters) or one the assessor cannot read. A finding makes the script BLOCKED.",
	  "Save the file as UTF-8 and remove the coding declaration." RUN_REVIEWED },
	{ "MAI020", "native-call",
	  "Calls native code through ctypes or cffi, which bypasses every check Python makes and can read or change any memory of the process.",
	  "Use a Python module that does the same, or review the native calls." RUN_REVIEWED },
	{ "MAI021", "native-interface-import",
	  "Imports ctypes, cffi or _ctypes, the interfaces to native code.",
	  "Remove the import when it is not used; otherwise review the native calls it serves." },
	{ "MAI030", "socket",
	  "Opens a network socket. The sandbox has no network unless the allow-list mode is configured, so the call fails there.",
	  "Remove network use, or configure the network allow-list in sandbox.yaml for the hosts the script needs." RUN_REVIEWED },
	{ "MAI031", "urllib",
	  "Opens a URL with urllib, which also reads file:// and other schemes.",
	  "Remove network use, or configure the network allow-list in sandbox.yaml; check the scheme of every URL opened." RUN_REVIEWED },
	{ "MAI032", "http-client",
	  "Opens an HTTP or XML-RPC connection.",
	  "Remove network use, or configure the network allow-list in sandbox.yaml." RUN_REVIEWED },
	{ "MAI033", "http-request",
	  "Makes an HTTP request with requests, httpx, urllib3 or aiohttp.",
	  "Remove network use, or configure the network allow-list in sandbox.yaml." RUN_REVIEWED },
	{ "MAI034", "ftp",
	  "Opens an FTP connection, which sends credentials and data in clear text.",
	  "Use SFTP or HTTPS, and configure the network allow-list for it." RUN_REVIEWED },
	{ "MAI035", "telnet",
	  "Opens a Telnet connection, which sends credentials and data in clear text.",
	  "Use SSH instead, and configure the network allow-list for it." RUN_REVIEWED },
	{ "MAI036", "mail",
	  "Opens a connection to a mail server (SMTP, POP3, IMAP): the script can send or read mail.",
	  "Remove the call, or configure the network allow-list for the mail server." RUN_REVIEWED },
	{ "MAI040", "pickle",
	  "Deserializes with pickle, shelve, dill or jsonpickle; loading data that someone else wrote runs code of their choosing.",
	  "Load data with json or another format that cannot describe code." },
	{ "MAI041", "marshal",
	  "Deserializes with marshal, whose format is for the interpreter's own code objects and is not safe against crafted input.",
	  "Load data with json instead." },
	{ "MAI042", "yaml-load",
	  "Calls yaml.load without a safe loader, which can build arbitrary Python objects from the document.",
	  "Use yaml.safe_load, or pass Loader=yaml.SafeLoader." },
	{ "MAI050", "write-outside",
	  "Opens for writing a file with an absolute path or a path that climbs out with '..', outside the script's working directory.",
	  "Write below the working directory or /tmp; the sandbox's root file system is read-only anyway." RUN_REVIEWED },
	{ "MAI051", "write-local",
	  "Writes a file in the working directory. In the sandbox only /tmp is writable and it is discarded after the run.",
	  "Nothing to do when the file is scratch data; print what must be kept, the output is in the result." },
	{ "MAI052", "file-change-outside",
	  "Deletes, moves or copies files with an absolute path or a path that climbs out with '..'.",
	  "Work on paths below the working directory only." RUN_REVIEWED },
	{ "MAI053", "delete",
	  "Deletes files or directories.",
	  "Check which paths are deleted; nothing to do when they are the script's own scratch files." },
	{ "MAI060", "permission-change",
	  "Changes file permissions or ownership, or the process's user, group or root directory.",
	  "Remove the call: the sandbox runs the script as an unprivileged user and such calls fail there." RUN_REVIEWED },
	{ "MAI070", "secret-read",
	  "Reads a file that holds secrets: password and sudoers files, SSH, cloud or Docker credentials, GnuPG keys or the process environment.",
	  "Remove the read; pass what the script needs as data instead of letting it look for credentials." RUN_REVIEWED },
	{ "MAI071", "environment-dump",
	  "Prints or serializes the whole environment (os.environ), which usually holds tokens and passwords.",
	  "Read the single variables the script needs with os.environ.get('NAME')." RUN_REVIEWED },
	{ "MAI072", "environment-read",
	  "Reads the whole environment (os.environ.copy, items, values).",
	  "Read the single variables the script needs with os.environ.get('NAME')." RUN_REVIEWED },
};

const struct assess_rule_doc *assess_rule_doc_find(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++)
		if (!strcmp(docs[i].id, id))
			return &docs[i];
	return NULL;
}

/* MITRE's names of the CWEs the built-in rules and Bandit's usual tests cite. */
static const struct {
	unsigned id;
	const char *name;
} cwes[] = {
	{ 20, "Improper Input Validation" },
	{ 22, "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')" },
	{ 73, "External Control of File Name or Path" },
	{ 78, "Improper Neutralization of Special Elements used in an OS Command ('OS Command Injection')" },
	{ 89, "Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')" },
	{ 94, "Improper Control of Generation of Code ('Code Injection')" },
	{ 95, "Improper Neutralization of Directives in Dynamically Evaluated Code ('Eval Injection')" },
	{ 200, "Exposure of Sensitive Information to an Unauthorized Actor" },
	{ 259, "Use of Hard-coded Password" },
	{ 269, "Improper Privilege Management" },
	{ 295, "Improper Certificate Validation" },
	{ 319, "Cleartext Transmission of Sensitive Information" },
	{ 327, "Use of a Broken or Risky Cryptographic Algorithm" },
	{ 330, "Use of Insufficiently Random Values" },
	{ 377, "Insecure Temporary File" },
	{ 400, "Uncontrolled Resource Consumption" },
	{ 470, "Use of Externally-Controlled Input to Select Classes or Code ('Unsafe Reflection')" },
	{ 502, "Deserialization of Untrusted Data" },
	{ 506, "Embedded Malicious Code" },
	{ 522, "Insufficiently Protected Credentials" },
	{ 526, "Cleartext Storage of Sensitive Information in an Environment Variable" },
	{ 605, "Multiple Binds to the Same Port" },
	{ 611, "Improper Restriction of XML External Entity Reference" },
	{ 676, "Use of Potentially Dangerous Function" },
	{ 703, "Improper Check or Handling of Exceptional Conditions" },
	{ 732, "Incorrect Permission Assignment for Critical Resource" },
	{ 838, "Inappropriate Encoding for Output Context" },
};

const char *assess_cwe_name(unsigned cwe)
{
	for (size_t i = 0; i < ARRAY_SIZE(cwes); i++)
		if (cwes[i].id == cwe)
			return cwes[i].name;
	return NULL;
}
