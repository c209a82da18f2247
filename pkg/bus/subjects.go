package bus

import (
	"fmt"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Subject kinds: the second token of every subject.
const (
	kindSnapshots  = "snapshots"
	kindStatus     = "status"
	kindConnTest   = "conntest"
	kindDeadLetter = "deadletter"
)

// Wildcard subjects of each stream and of the connection-test requests.
const (
	// SnapshotSubjects matches every snapshot subject.
	SnapshotSubjects = Root + "." + kindSnapshots + ".>"
	// StatusSubjects matches every status subject.
	StatusSubjects = Root + "." + kindStatus + ".>"
	// DeadLetterSubjects matches every dead-letter subject.
	DeadLetterSubjects = Root + "." + kindDeadLetter + ".>"
	// ConnTestSubjects matches every connection-test request subject.
	ConnTestSubjects = Root + "." + kindConnTest + ".*"
)

// join encodes each name as a token and joins them after the fixed prefix
// tokens, which are used as they are.
func join(prefix []string, names ...string) string {
	parts := append([]string(nil), prefix...)
	for _, n := range names {
		parts = append(parts, EncodeToken(n))
	}
	return strings.Join(parts, ".")
}

// split checks that s is prefix followed by n tokens and decodes the tokens.
func split(what, s string, prefix []string, n int) ([]string, error) {
	toks := strings.Split(s, ".")
	if len(toks) != len(prefix)+n {
		return nil, fmt.Errorf("parse %s %q: want %d tokens, got %d", what, s, len(prefix)+n, len(toks))
	}
	for i, p := range prefix {
		if toks[i] != p {
			return nil, fmt.Errorf("parse %s %q: token %d is %q, want %q", what, s, i, toks[i], p)
		}
	}
	out := make([]string, n)
	for i, tok := range toks[len(prefix):] {
		v, err := DecodeToken(tok)
		if err != nil {
			return nil, fmt.Errorf("parse %s %q: %w", what, s, err)
		}
		out[i] = v
	}
	return out, nil
}

// SnapshotSubject returns kollect.snapshots.<namespace>.<inventory>, the
// subject of an inventory's snapshot events; a ClusterInventory has the empty
// namespace (EmptyToken).
func SnapshotSubject(inv busv1.NamespacedName) string {
	return join([]string{Root, kindSnapshots}, inv.Namespace, inv.Name)
}

// ParseSnapshotSubject inverts SnapshotSubject.
func ParseSnapshotSubject(s string) (busv1.NamespacedName, error) {
	v, err := split("snapshot subject", s, []string{Root, kindSnapshots}, 2)
	if err != nil {
		return busv1.NamespacedName{}, err
	}
	return busv1.NamespacedName{Namespace: v[0], Name: v[1]}, nil
}

// ConnTestSubject returns kollect.conntest.<family>, where control sends
// connection-test requests for the family's sinks (core NATS request-reply,
// not stored).
func ConnTestSubject(f busv1.Family) string {
	return join([]string{Root, kindConnTest}, string(f))
}

// ParseConnTestSubject inverts ConnTestSubject.
func ParseConnTestSubject(s string) (busv1.Family, error) {
	v, err := split("connection-test subject", s, []string{Root, kindConnTest}, 1)
	if err != nil {
		return "", err
	}
	return busv1.Family(v[0]), nil
}

// DeadLetterSubject returns kollect.deadletter.<family>.<namespace>.<inventory>,
// where the family's exporter records a snapshot event it terminated.
func DeadLetterSubject(f busv1.Family, inv busv1.NamespacedName) string {
	return join([]string{Root, kindDeadLetter}, string(f), inv.Namespace, inv.Name)
}

// ParseDeadLetterSubject inverts DeadLetterSubject.
func ParseDeadLetterSubject(s string) (busv1.Family, busv1.NamespacedName, error) {
	v, err := split("dead-letter subject", s, []string{Root, kindDeadLetter}, 3)
	if err != nil {
		return "", busv1.NamespacedName{}, err
	}
	return busv1.Family(v[0]), busv1.NamespacedName{Namespace: v[1], Name: v[2]}, nil
}

// DeadLetterSubjectFilter returns the dead-letter subjects of the given
// tokens, each already encoded (EncodeToken) or the wildcard "*":
// DeadLetterSubjectFilter("*", EncodeToken("team-a"), "*") matches the
// dead letters of every inventory of team-a.
func DeadLetterSubjectFilter(familyTok, namespaceTok, inventoryTok string) string {
	return strings.Join([]string{Root, kindDeadLetter, familyTok, namespaceTok, inventoryTok}, ".")
}
