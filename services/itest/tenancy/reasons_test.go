package tenancy

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
)

// outcome is one condition an attacked object may end with.
type outcome struct {
	typ    string
	status metav1.ConditionStatus
	reason string
}

func (o outcome) String() string { return fmt.Sprintf("%s=%s (%s)", o.typ, o.status, o.reason) }

// refusal is how an attack must end: with one of anyOf, whose message
// matches mentions (the field or identity the refusal is about).
type refusal struct {
	anyOf    []outcome
	mentions *regexp.Regexp
}

var (
	readyFalse = func(reason string) outcome { return outcome{v1alpha1.ConditionReady, metav1.ConditionFalse, reason} }
	degraded   = func(reason string) outcome { return outcome{v1alpha1.ConditionDegraded, metav1.ConditionTrue, reason} }
	unverified = func(reason string) outcome {
		return outcome{v1alpha1.ConditionConnectionVerified, metav1.ConditionFalse, reason}
	}
)

// The refusals every vector expects, in one place: where a fix settles on
// another reason or wording, only this table changes. Reasons are the
// constants of api/v1alpha1/reasons.go.
var (
	// A Target selecting namespaces its ServiceAccount may not list: none
	// allowed (Ready) or some (Degraded); the message names the
	// ServiceAccount.
	refuseTargetAccess = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonAccessDenied), degraded(v1alpha1.ReasonAccessDenied)},
		mentions: regexp.MustCompile(`(?i)service ?account|team-a[:/]kollect`),
	}
	// A replay whose namespace's ServiceAccount may not get the inventory:
	// the same message whether the inventory exists or not.
	refuseReplay = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonAccessDenied)},
		mentions: regexp.MustCompile(`ServiceAccount team-a/kollect, as which the replay runs, may not get`),
	}
	// A sink whose secretRef names another namespace.
	refuseSecretRef = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonSecretRefDenied)},
		mentions: regexp.MustCompile(`secretRef`),
	}
	// A Target naming a ServiceAccount, or a sink naming a Secret, chosen
	// by a user who may not use it: without the webhook no requester is
	// recorded (F6).
	refuseRequester = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonRequesterUnverified), readyFalse(v1alpha1.ReasonRequesterDenied)},
		mentions: regexp.MustCompile(`(?i)requester`),
	}
	// A sink without secretRef that would run with the exporter's identity;
	// control may see it at reconcile, or the exporter when it builds the
	// sink (then the probe reports it).
	refuseAmbient = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonCredentialsDenied), unverified(v1alpha1.ReasonCredentialsDenied)},
		mentions: regexp.MustCompile(`(?i)secretRef|ambient`),
	}
	// Credentials of a refused type; only the exporter reads them.
	refuseCredentialType = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonCredentialsDenied), unverified(v1alpha1.ReasonCredentialsDenied)},
		mentions: regexp.MustCompile(`(?i)external_account|credential`),
	}
	// An endpoint on a refused address, seen at reconcile or at dial time.
	refuseEndpoint = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonEndpointDenied), unverified(v1alpha1.ReasonEndpointDenied)},
		mentions: regexp.MustCompile(`(?i)endpoint|address`),
	}
	// An allowed endpoint that redirects to a refused address: only the dial
	// can refuse it.
	refuseRedirect = refusal{
		anyOf: []outcome{readyFalse(v1alpha1.ReasonEndpointDenied), unverified(v1alpha1.ReasonEndpointDenied),
			unverified(v1alpha1.ReasonConnectionTestFailed)},
		mentions: regexp.MustCompile(`(?i)denied|not allowed`),
	}
	// A Profile metric whose labels collide with the built-in ones; the
	// Target using it cannot run.
	refuseMetricLabels = refusal{
		anyOf:    []outcome{readyFalse(v1alpha1.ReasonInvalidSpec)},
		mentions: regexp.MustCompile(`spec\.metrics`),
	}
)

// anything matches every message.
var anything = regexp.MustCompile(``)

// What admission denials must mention.
var (
	denyWide = regexp.MustCompile(`(?i)cluster-wide|every namespace|all namespaces`)
	// denyListed: the suite's webhook has no client CA, so its caller is
	// not verified and the denial does not name the namespace (F8).
	denyListed      = regexp.MustCompile(`may not list \w+ in one of the namespaces listed`)
	denyTargetFirst = regexp.MustCompile(`(?i)profile|team-b|service ?account`)
	denySecretRef   = regexp.MustCompile(`secretRef`)
	denyIdentity    = regexp.MustCompile(`may not (act as ServiceAccount|get Secret)`)
	denyMetrics     = regexp.MustCompile(`spec\.metrics`)
	denyEndpoint    = regexp.MustCompile(`(?i)endpoint`)
)

// check returns nil when conds end the attack as r says, or an error saying
// what they hold instead.
func (r refusal) check(conds []metav1.Condition) error {
	var want []string
	for _, o := range r.anyOf {
		c := meta.FindStatusCondition(conds, o.typ)
		if c != nil && c.Status == o.status && c.Reason == o.reason {
			if !r.mentions.MatchString(c.Message) {
				return fmt.Errorf("%s, but its message %q does not match %q", o, c.Message, r.mentions)
			}
			return nil
		}
		want = append(want, o.String())
	}
	return fmt.Errorf("want one of %s; conditions: %s", strings.Join(want, ", "), describe(conds))
}

// describe renders conditions on one line.
func describe(conds []metav1.Condition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
