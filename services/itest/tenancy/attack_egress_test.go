package tenancy

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// deniedDirect is a listener inside the operator's deny list that a sink
// names; it counts the connections that must never come.
var deniedDirect = lazyRecorder(func() (*recorder, error) { return startTCPRecorder("deny-list-direct", denyAddr, nil) })

// loopback is a sink endpoint on 127.0.0.1 for the closed phase.
var loopback = lazyRecorder(func() (*recorder, error) { return startHTTPRecorder("loopback", "127.0.0.1", nil) })

// redirect is an allowed endpoint (loopback, under the opt-in) that
// answers every request with a redirect to a listener inside the deny
// list.
type redirect struct{ from, to *recorder }

var startRedirect = sync.OnceValues(func() (redirect, error) {
	to, err := startTCPRecorder("deny-list-redirect", denyAddr, nil)
	if err != nil {
		return redirect{}, err
	}
	from, err := startHTTPRecorder("redirector", "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+to.addr+r.URL.RequestURI(), http.StatusFound)
	})
	return redirect{from: from, to: to}, err
})

// gitSinkSpec is a Git sink on endpoint, without credentials.
func gitSinkSpec(endpoint string) string { return `{type: git, endpoint: "` + endpoint + `"}` }

func egressVectors() []vector {
	return []vector{
		refusedAddress("link-local cloud metadata, which the opt-in does not open,", "metadata", "http://169.254.169.254/latest/meta-data.git"),
		vector{"a sink inside the operator's deny list is refused and never dialed", func(t *testing.T) {
			r := deniedDirect(t)
			apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "egress-deny-list", gitSinkSpec("http://$addr/x.git"), r.addr, false)...)
			waitRefused(t, "KollectSnapshotSink", teamA, "egress-deny-list", refuseEndpoint, noConnections(r))
		}},
		vector{"a redirect into the operator's deny list is not followed", func(t *testing.T) {
			rd, err := startRedirect()
			if err != nil {
				t.Fatalf("start the redirect: %v", err)
			}
			apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "egress-redirect", gitSinkSpec("http://$addr/x.git"), rd.from.addr, false)...)
			waitRefused(t, "KollectSnapshotSink", teamA, "egress-redirect", refuseRedirect, noConnections(rd.to))
			if rd.from.connections() == 0 {
				t.Errorf("the redirector was never contacted: the redirect was not tried")
			}
		}},
	}
}

// refusedAddress is a Git sink on endpoint, which must be refused.
func refusedAddress(what, name, endpoint string) vector {
	return vector{"a sink on " + what + " is refused", func(t *testing.T) {
		apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "egress-"+name, gitSinkSpec(endpoint), "", false)...)
		waitRefused(t, "KollectSnapshotSink", teamA, "egress-"+name, refuseEndpoint, nil)
	}}
}

// closedEgressVectors run without the in-cluster sinks opt-in.
func closedEgressVectors() []vector {
	return []vector{
		refusedAddress("CGNAT cloud metadata (100.64.0.0/10)", "cgnat", "http://100.100.100.200/latest.git"),
		refusedAddress("the NAT64 form of cloud metadata (64:ff9b::/96)", "nat64", "http://[64:ff9b::a9fe:a9fe]/latest.git"),
		refusedAddress("the 6to4 form of cloud metadata (2002::/16)", "6to4", "http://[2002:a9fe:a9fe::1]/latest.git"),
		{"a sink on 127.0.0.1 is refused and never dialed", func(t *testing.T) {
			r := loopback(t)
			apply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "egress-loopback", gitSinkSpec("http://$addr/x.git"), r.addr, false)...)
			waitRefused(t, "KollectSnapshotSink", teamA, "egress-loopback", refuseEndpoint, noConnections(r))
		}},
		{"a sink on 127.0.0.1 is denied by the webhook", func(t *testing.T) {
			r := loopback(t)
			err := tryApply(t, asAlice(t), sinkYAML, sink("KollectSnapshotSink", "egress-loopback-admission", gitSinkSpec("http://$addr/x.git"), r.addr, true)...)
			denied(t, err, denyEndpoint)
		}},
	}
}

// noConnections returns a guard failing once r accepted a connection.
func noConnections(r *recorder) func() error {
	return func() error {
		if n := r.connections(); n > 0 {
			return fmt.Errorf("the exporter connected %d times to %s", n, r.addr)
		}
		return nil
	}
}
