package tenancy

import (
	"testing"
)

// vector is one attack, run as a parallel subtest.
type vector struct {
	name string
	run  func(t *testing.T)
}

// TestTenantBoundaries runs every attack of team-a on team-b (and on the
// exporter's own identity), each of which must end refused, then sweeps
// every place the suite can see for the canaries.
func TestTenantBoundaries(t *testing.T) {
	asAlice(t)
	groups := []struct {
		name    string
		vectors []vector
	}{
		{"a Target reaches only what its ServiceAccount may list", targetVectors()},
		{"a sink uses only its own namespace's credentials", credentialVectors()},
		{"choosing an identity needs the right to use it", identityVectors()},
		{"a grant withdrawn is withdrawn at once", revokeVectors()},
		{"redaction holds however a value is selected", redactionVectors()},
		{"a Profile cannot break the collector's metrics", metricVectors()},
		{"the platform's cluster objects reveal nothing to a tenant", platformVectors()},
		{"an inventory's rows need a grant of their own", historyVectors()},
		{"a service's metrics need a token allowed to read them", scrapeVectors()},
		{"a sink's forged history does not verify against the bus", forgeVectors()},
		{"the webhook is no oracle and no flood target", webhookVectors()},
		{"egress with the in-cluster opt-in still refuses metadata, the deny list and redirects into it", egressVectors()},
	}
	t.Run("with the in-cluster sinks opt-in", func(t *testing.T) {
		for _, g := range groups {
			t.Run(g.name, func(t *testing.T) {
				t.Parallel()
				for _, v := range g.vectors {
					t.Run(v.name, func(t *testing.T) {
						t.Parallel()
						v.run(t)
					})
				}
			})
		}
	})
	t.Run("egress without the in-cluster opt-in refuses loopback, CGNAT, NAT64 and 6to4", func(t *testing.T) {
		switchPhase(t, closedPhase)
		for _, v := range closedEgressVectors() {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				v.run(t)
			})
		}
	})
	t.Run("no canary is anywhere afterwards", func(t *testing.T) {
		found, err := sweep(t.Context(), allCanaries())
		if err != nil {
			t.Fatalf("sweep: %v", err)
		}
		for _, f := range found {
			t.Errorf("%v", f)
		}
	})
}
