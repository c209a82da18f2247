package bus

import (
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// StatusAddress is what a status subject names: the reporting service, the
// object, and for an export report the binding's sink. StreamStatus keeps the
// latest message per subject, so each address holds one current report.
type StatusAddress struct {
	// Service is the reporting service.
	Service busv1.Service
	// Kind of the object reported on.
	Kind busv1.Kind
	// Namespace of the object; empty for cluster-scoped kinds.
	Namespace string
	// Name of the object.
	Name string
	// Sink is set for an export report, which is per (inventory, sink).
	Sink *busv1.SinkRef
}

// StatusSubject returns kollect.status.<service>.<kind>.<namespace>.<name>,
// or for an export report
// kollect.status.<service>.<kind>.<namespace>.<name>.<family>.<sinkNamespace>.<sink>.
func StatusSubject(a StatusAddress) string {
	names := []string{string(a.Service), string(a.Kind), a.Namespace, a.Name}
	if a.Sink != nil {
		names = append(names, string(a.Sink.Family), a.Sink.Namespace, a.Sink.Name)
	}
	return join([]string{Root, kindStatus}, names...)
}

// StatusSubjectFor returns the subject a report is published on: its object's
// subject, or the binding's subject when it carries an export section.
func StatusSubjectFor(r busv1.StatusReport) string {
	a := StatusAddress{Service: r.Service, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	if r.Export != nil {
		sink := r.Export.Sink
		a.Sink = &sink
	}
	return StatusSubject(a)
}

// ParseStatusSubject inverts StatusSubject.
func ParseStatusSubject(s string) (StatusAddress, error) {
	prefix := []string{Root, kindStatus}
	n := 4
	if strings.Count(s, ".") == len(prefix)+6 {
		n = 7
	}
	v, err := split("status subject", s, prefix, n)
	if err != nil {
		return StatusAddress{}, err
	}
	a := StatusAddress{Service: busv1.Service(v[0]), Kind: busv1.Kind(v[1]), Namespace: v[2], Name: v[3]}
	if n == 7 {
		a.Sink = &busv1.SinkRef{Family: busv1.Family(v[4]), Namespace: v[5], Name: v[6]}
	}
	return a, nil
}
