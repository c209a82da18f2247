package tenancy

import (
	"net/netip"

	"kollect.dev/kollect/pkg/egress"
)

// denyCIDR stands for the cluster's Service CIDR in the operator's deny
// list. It is a loopback range so that the suite can listen inside it and
// count the connections that must never come, while the open phase's
// in-cluster opt-in admits the rest of loopback.
const denyCIDR = "127.77.0.0/16"

// denyAddr is the address inside denyCIDR the suite listens on.
const denyAddr = "127.77.0.1"

// denyList is the operator's --deny-sink-cidrs of every phase.
func denyList() egress.Prefixes { return egress.Prefixes{netip.MustParsePrefix(denyCIDR)} }
