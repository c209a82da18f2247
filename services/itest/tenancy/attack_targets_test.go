package tenancy

import (
	"fmt"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
)

// targetProfiles are the Profiles the Target attacks bind: team-b's Secret
// data (with the opt-in annotation team-a sets itself) and Deployment env.
// setUpAttacker creates them, long before the webhook is asked about a
// Target using them (its cache lags: see targetBeforeProfile).
const targetProfiles = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: secret-data
  namespace: team-a
  annotations: {kollect.dev/allow-secret-extraction: "true"}
spec:
  targetGVK: {version: v1, kind: Secret}
  attributes: [{name: data, path: $.data, optional: true}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: deployment-env, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: [{name: env, path: "$.spec.template.spec.containers[*].env", type: list, optional: true}]
`

// targetYAML is a Target of team-a; $filter is its namespace filter and
// $labels its labels.
const targetYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: $name, namespace: team-a, labels: $labels}
spec:
  profileRef: {name: $profile}
  $filter
`

// target renders targetYAML's variables.
func target(name, profile, filter string, admission bool) []string {
	labels := "{}"
	if admission {
		labels = fmt.Sprintf("{%s: \"on\"}", labelAdmission)
	}
	return []string{"$name", name, "$profile", profile, "$filter", filter, "$labels", labels}
}

func targetVectors() []vector {
	var out []vector
	for _, tc := range []struct{ what, name, profile string }{
		{"Secrets", "secrets", "secret-data"},
		{"Deployments", "deployments", "deployment-env"},
	} {
		out = append(out,
			vector{"a wide Target for " + tc.what + " without the webhook collects nothing of team-b", func(t *testing.T) {
				refusedTarget(t, "wide-"+tc.name, tc.profile, "")
			}},
			vector{"a wide Target for " + tc.what + " is denied by the webhook", func(t *testing.T) {
				c := asAlice(t)
				denied(t, tryApply(t, c, targetYAML, target("wide-"+tc.name+"-admission", tc.profile, "", true)...), denyWide)
			}},
			vector{"a Target naming team-b for " + tc.what + " without the webhook collects nothing of team-b", func(t *testing.T) {
				refusedTarget(t, "named-"+tc.name, tc.profile, "includedNamespaces: [team-b]")
			}},
			vector{"a Target naming team-b for " + tc.what + " is denied by the webhook", func(t *testing.T) {
				c := asAlice(t)
				denied(t, tryApply(t, c, targetYAML, target("named-"+tc.name+"-admission", tc.profile, "includedNamespaces: [team-b]", true)...), denyListed)
			}},
		)
	}
	return append(out,
		vector{"a Target applied just before its Profile collects nothing of team-b", targetBeforeProfile},
		vector{"a Target whose Profile arrives later collects nothing of team-b", profileLater},
		vector{"a Profile switched from ConfigMaps to Secrets under an admitted Target collects no Secret of team-b", profileSwitch},
	)
}

// refusedTarget creates a Target without the webhook's label and expects
// it refused without a single row from outside team-a.
func refusedTarget(t *testing.T, name, profile, filter string) {
	c := asAlice(t)
	apply(t, c, targetYAML, target(name, profile, filter, false)...)
	waitRefused(t, "KollectTarget", teamA, name, refuseTargetAccess, foreignRows(t.Context(), teamA, name, []string{teamA}))
}

// lateProfile is a Profile for Secrets that arrives after its Target.
const lateProfile = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: $name
  namespace: team-a
  labels: {tenancy.kollect.dev/admission: "on"}
  annotations: {kollect.dev/allow-secret-extraction: "true"}
spec:
  targetGVK: {version: v1, kind: Secret}
  attributes: [{name: data, path: $.data, optional: true}]
`

// targetBeforeProfile is one apply holding a Target for team-b and then
// its Profile, through the webhook: the webhook sees no Profile yet. A
// denial of the Target is a refusal too.
func targetBeforeProfile(t *testing.T) {
	c := asAlice(t)
	err := tryApply(t, c, targetYAML, target("early", "early", "includedNamespaces: [team-b]", true)...)
	if err != nil {
		denied(t, err, denyTargetFirst)
		return
	}
	apply(t, c, lateProfile, "$name", "early")
	waitRefused(t, "KollectTarget", teamA, "early", refuseTargetAccess, foreignRows(t.Context(), teamA, "early", []string{teamA}))
}

// profileLater admits a Target for team-b whose Profile does not exist,
// waits for ProfileNotFound, then creates the Profile.
func profileLater(t *testing.T) {
	c := asAlice(t)
	err := tryApply(t, c, targetYAML, target("late", "late", "includedNamespaces: [team-b]", true)...)
	if err != nil {
		denied(t, err, denyTargetFirst)
		return
	}
	notFound := refusal{anyOf: []outcome{readyFalse(v1alpha1.ReasonProfileNotFound)}, mentions: anything}
	waitRefused(t, "KollectTarget", teamA, "late", notFound, nil)
	apply(t, c, lateProfile, "$name", "late")
	waitRefused(t, "KollectTarget", teamA, "late", refuseTargetAccess, foreignRows(t.Context(), teamA, "late", []string{teamA}))
}
