package tenancy

import "testing"

// Endpoints bob controls.
var (
	identityGit          = lazyRecorder(func() (*recorder, error) { return startHTTPRecorder("identity-git", "127.0.0.1", unauthorized) })
	identityGitAdmission = lazyRecorder(func() (*recorder, error) {
		return startHTTPRecorder("identity-git-admission", "127.0.0.1", unauthorized)
	})
)

// deployerTarget is bob's Target acting as deployerSA in team-b.
const deployerTarget = "serviceAccountName: " + deployerSA + "\n  includedNamespaces: [team-b]"

// ownSecretGit is bob's git sink sending team-a's db-creds (which bob may
// not read) to his endpoint.
const ownSecretGit = `{type: git, endpoint: "http://$addr/x.git", git: {auth: {type: token}}, secretRef: {name: db-creds}}`

// identityVectors are F6 of the third review: choosing an identity is a
// privilege. bob may write kollect.dev objects only.
func identityVectors() []vector {
	return []vector{
		{"a user who may only write Kollect objects cannot make a Target act as a stronger ServiceAccount", func(t *testing.T) {
			apply(t, asBob(t), targetYAML, target("borrowed-sa", "deployment-env", deployerTarget, false)...)
			waitRefused(t, "KollectTarget", teamA, "borrowed-sa", refuseRequester, foreignRows(t.Context(), teamA, "borrowed-sa", []string{teamA}))
		}},
		{"a Target naming a ServiceAccount its user may not act as is denied by the webhook", func(t *testing.T) {
			denied(t, tryApply(t, asBob(t), targetYAML, target("borrowed-sa-admission", "deployment-env", deployerTarget, true)...), denyIdentity)
		}},
		{"a user who may only write Kollect objects cannot send a Secret of the namespace to an endpoint", func(t *testing.T) {
			r := identityGit(t)
			apply(t, asBob(t), sinkYAML, sink("KollectSnapshotSink", "identity-git", ownSecretGit, r.addr, false)...)
			bind(t, "KollectSnapshotSink", "identity-git")
			waitRefused(t, "KollectSnapshotSink", teamA, "identity-git", refuseRequester, canaryAt(allCanaries(), r))
		}},
		{"a sink naming a Secret its user may not get is denied by the webhook", func(t *testing.T) {
			r := identityGitAdmission(t)
			denied(t, tryApply(t, asBob(t), sinkYAML, sink("KollectSnapshotSink", "identity-git-admission", ownSecretGit, r.addr, true)...), denyIdentity)
		}},
	}
}
