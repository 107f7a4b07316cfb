// tlogcheck: what Mai agent's audit log writes, read by Go's own
// transparency-log code (golang.org/x/mod/sumdb/note and sumdb/tlog, as
// Debian's golang-golang-x-mod-dev ships them), for tests/integration/
// tlog_interop.sh. Built offline in GOPATH mode against /usr/share/gocode.
//
//	tlogcheck checkpoint PUBKEY NOTE               note.Open; prints "SIZE ROOT_HEX"
//	tlogcheck log PUBKEY LOG_DIR                   every record's entry hash and the
//	                                               checkpoint's root from the records
//	tlogcheck sidecar PUBKEY FILE.audit            each record's leaf and inclusion proof
//	tlogcheck consistency PUBKEY OLD NEW REPORT    the agent's consistency proof
//	                                               (verify --json) with tlog.CheckTree
//	tlogcheck cosign NOTE NAME OUT OUT_VKEY        adds a C2SP tlog-cosignature/v1 line
//	                                               and a plain Ed25519 note signature
//	                                               by new keys
//	tlogcheck sign PRIVKEY BODY OUT                signs BODY with the agent's key file
package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// The leaf is the record line after the entry hash and its space
// (agent/audit/audit_format.h, AUDIT_LEAF_OFFSET).
const leafOffset = 65

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tlogcheck: "+format+"\n", args...)
	os.Exit(1)
}

func readFile(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		die("%v", err)
	}
	return b
}

func verifier(pubPath string) note.Verifier {
	v, err := note.NewVerifier(strings.TrimSpace(string(readFile(pubPath))))
	if err != nil {
		die("%s: not a note verifier key: %v", pubPath, err)
	}
	return v
}

type checkpoint struct {
	origin string
	size   int64
	root   tlog.Hash
}

// openCheckpoint checks the note's signature with Go's note.Open and parses
// its tlog-checkpoint body (origin, size, base64 root, extension lines).
func openCheckpoint(v note.Verifier, path string) checkpoint {
	n, err := note.Open(readFile(path), note.VerifierList(v))
	if err != nil {
		die("%s: note.Open: %v", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 {
		die("%s: not a checkpoint body", path)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		die("%s: bad tree size %q", path, lines[1])
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		die("%s: bad root hash %q", path, lines[2])
	}
	var ck checkpoint
	ck.origin, ck.size = lines[0], size
	copy(ck.root[:], raw)
	if ck.origin != v.Name() {
		die("%s: origin %q is not the key name %q", path, ck.origin, v.Name())
	}
	return ck
}

// hashStore is the tree's stored hashes (tlog.StoredHashes) in memory.
type hashStore []tlog.Hash

func (s *hashStore) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(*s)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = (*s)[x]
	}
	return out, nil
}

func (s *hashStore) add(n int64, leaf []byte) {
	hs, err := tlog.StoredHashes(n, leaf, s)
	if err != nil {
		die("StoredHashes(%d): %v", n, err)
	}
	*s = append(*s, hs...)
}

func checkEntryHash(line []byte, seq int64) []byte {
	if len(line) <= leafOffset || line[leafOffset-1] != ' ' {
		die("record %d: too short for an entry hash", seq)
	}
	leaf := line[leafOffset:]
	h := tlog.RecordHash(leaf)
	if hex.EncodeToString(h[:]) != string(line[:64]) {
		die("record %d: entry hash %s is not SHA-256(0x00 || leaf) %s", seq, line[:64], h)
	}
	return leaf
}

func cmdLog(v note.Verifier, dir string) {
	ck := openCheckpoint(v, filepath.Join(dir, "checkpoint"))
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	sort.Strings(segs)
	var store hashStore
	var n int64
	for _, seg := range segs {
		f, err := os.Open(seg)
		if err != nil {
			die("%v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			store.add(n, checkEntryHash(sc.Bytes(), n))
			n++
		}
		f.Close()
	}
	if n < ck.size {
		die("the checkpoint covers %d records, the log has %d", ck.size, n)
	}
	root, err := tlog.TreeHash(ck.size, &store)
	if err != nil {
		die("TreeHash: %v", err)
	}
	if root != ck.root {
		die("the root of the first %d records is %s, the checkpoint says %s", ck.size, root, ck.root)
	}
	fmt.Printf("ok records=%d checkpoint=%d root=%s\n", n, ck.size, root)
}

type sidecar struct {
	Format     string `json:"format"`
	Checkpoint string `json:"checkpoint"`
	Records    []struct {
		Seq    int64    `json:"seq"`
		Record string   `json:"record"`
		Proof  []string `json:"proof"`
	} `json:"records"`
}

func hashes(hexes []string) []tlog.Hash {
	out := make([]tlog.Hash, len(hexes))
	for i, s := range hexes {
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			die("bad proof hash %q", s)
		}
		copy(out[i][:], b)
	}
	return out
}

func cmdSidecar(v note.Verifier, path string) {
	var sc sidecar
	if err := json.Unmarshal(readFile(path), &sc); err != nil {
		die("%s: %v", path, err)
	}
	tmp, err := os.CreateTemp("", "tlogcheck-*.ckpt")
	if err != nil {
		die("%v", err)
	}
	defer os.Remove(tmp.Name())
	tmp.WriteString(sc.Checkpoint)
	tmp.Close()
	ck := openCheckpoint(v, tmp.Name())
	for _, r := range sc.Records {
		leaf := checkEntryHash([]byte(r.Record), r.Seq)
		if err := tlog.CheckRecord(tlog.RecordProof(hashes(r.Proof)), ck.size, ck.root, r.Seq,
			tlog.RecordHash(leaf)); err != nil {
			die("record %d: CheckRecord against the checkpoint (%d): %v", r.Seq, ck.size, err)
		}
	}
	fmt.Printf("ok records=%d checkpoint=%d\n", len(sc.Records), ck.size)
}

func cmdConsistency(v note.Verifier, oldPath, newPath, reportPath string) {
	old, cur := openCheckpoint(v, oldPath), openCheckpoint(v, newPath)
	var rep struct {
		Consistency struct {
			From  int64    `json:"from"`
			To    int64    `json:"to"`
			Proof []string `json:"proof"`
		} `json:"consistency"`
	}
	if err := json.Unmarshal(readFile(reportPath), &rep); err != nil {
		die("%s: %v", reportPath, err)
	}
	c := rep.Consistency
	if c.From != old.size || c.To != cur.size {
		die("the report proves %d -> %d, the checkpoints are %d and %d", c.From, c.To, old.size, cur.size)
	}
	if err := tlog.CheckTree(tlog.TreeProof(hashes(c.Proof)), cur.size, cur.root, old.size, old.root); err != nil {
		die("CheckTree %d -> %d: %v", old.size, cur.size, err)
	}
	fmt.Printf("ok consistency %d -> %d proof=%d\n", old.size, cur.size, len(c.Proof))
}

// cosignatureLine is a C2SP tlog-cosignature/v1 line: key hash over
// name || 0x0A || 0x04 || public key, then an 8-byte big-endian timestamp
// and the Ed25519 signature of "cosignature/v1\ntime T\n" || the body.
func cosignatureLine(name string, priv ed25519.PrivateKey, body []byte) (string, string) {
	pub := priv.Public().(ed25519.PublicKey)
	kh := sha256.Sum256(append(append([]byte(name+"\n"), 0x04), pub...))
	t := uint64(time.Now().Unix())
	msg := append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", t)), body...)
	sig := make([]byte, 0, 4+8+ed25519.SignatureSize)
	sig = append(sig, kh[:4]...)
	sig = binary.BigEndian.AppendUint64(sig, t)
	sig = append(sig, ed25519.Sign(priv, msg)...)
	vkey := fmt.Sprintf("%s+%x+%s", name, kh[:4], base64.StdEncoding.EncodeToString(append([]byte{0x04}, pub...)))
	return "\u2014 " + name + " " + base64.StdEncoding.EncodeToString(sig) + "\n", vkey
}

func cmdCosign(notePath, name, outPath, vkeyPath string) {
	msg := readFile(notePath)
	split := bytes.LastIndex(msg, []byte("\n\n"))
	if split < 0 {
		die("%s: not a signed note", notePath)
	}
	body := msg[:split+1]
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		die("%v", err)
	}
	line, vkey := cosignatureLine(name, priv, body)
	if len(strings.Fields(line)[2]) != 104 {
		die("a cosignature is 104 base64 characters, got %d", len(strings.Fields(line)[2]))
	}
	// A second witness signs the usual way, with Go's own note.Sign.
	skey, wvkey, err := note.GenerateKey(rand.Reader, name+"/ed25519")
	if err != nil {
		die("%v", err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		die("%v", err)
	}
	signed, err := note.Sign(&note.Note{Text: string(body)}, signer)
	if err != nil {
		die("note.Sign: %v", err)
	}
	plain := signed[bytes.LastIndex(signed, []byte("\n\n"))+2:]
	out := append(append(append([]byte{}, msg...), line...), plain...)
	// Go agrees that the note now carries the witness's signature (and
	// ignores the agent's and the cosignature, which it does not know).
	wv, err := note.NewVerifier(wvkey)
	if err != nil {
		die("%v", err)
	}
	if _, err := note.Open(out, note.VerifierList(wv)); err != nil {
		die("note.Open of the cosigned note with the witness key: %v", err)
	}
	if err := os.WriteFile(outPath, out, 0o644); err != nil {
		die("%v", err)
	}
	if err := os.WriteFile(vkeyPath, []byte(vkey+"\n"+wvkey+"\n"), 0o644); err != nil {
		die("%v", err)
	}
	fmt.Printf("ok cosigned by %s (%d signature lines)\n", name, bytes.Count(out[split+2:], []byte("\n")))
}

func cmdSign(privPath, bodyPath, outPath string) {
	signer, err := note.NewSigner(strings.TrimSpace(string(readFile(privPath))))
	if err != nil {
		die("%s: not a note signer key: %v", privPath, err)
	}
	out, err := note.Sign(&note.Note{Text: string(readFile(bodyPath))}, signer)
	if err != nil {
		die("note.Sign: %v", err)
	}
	if err := os.WriteFile(outPath, out, 0o644); err != nil {
		die("%v", err)
	}
}

func main() {
	a := os.Args
	switch {
	case len(a) == 4 && a[1] == "checkpoint":
		ck := openCheckpoint(verifier(a[2]), a[3])
		fmt.Printf("%d %s\n", ck.size, hex.EncodeToString(ck.root[:]))
	case len(a) == 4 && a[1] == "log":
		cmdLog(verifier(a[2]), a[3])
	case len(a) == 4 && a[1] == "sidecar":
		cmdSidecar(verifier(a[2]), a[3])
	case len(a) == 6 && a[1] == "consistency":
		cmdConsistency(verifier(a[2]), a[3], a[4], a[5])
	case len(a) == 6 && a[1] == "cosign":
		cmdCosign(a[2], a[3], a[4], a[5])
	case len(a) == 5 && a[1] == "sign":
		cmdSign(a[2], a[3], a[4])
	default:
		die("usage: see the comment at the top of tests/interop/tlogcheck/main.go")
	}
}
