package tenancy

import (
	"net"
	"net/netip"
	"reflect"
	"strings"
)

// denyCIDR stands for the cluster's Service CIDR in the operator's deny
// list. It is a loopback range so that the suite can listen inside it and
// count the connections that must never come, while the open phase's
// in-cluster opt-in admits the rest of loopback.
const denyCIDR = "127.77.0.0/16"

// denyAddr is the address inside denyCIDR the suite listens on.
const denyAddr = "127.77.0.1"

// setting is an operator setting the fixes of issue #16 add to dev.Options
// (and, for the webhook, control.Config). The suite sets it by field name so
// that it builds before the field exists; a build without it reports the
// setting as missing, and the vectors that need it fail saying so.
type setting struct {
	// field is the name of the Go field; the lead adjusts it here if the
	// fix named it differently.
	field string
	// values are the setting's values.
	values []string
}

// operatorSettings are applied to every phase.
var operatorSettings = []setting{
	{field: "DenyCIDRs", values: []string{denyCIDR}},
}

// applySettings sets each of operatorSettings on the struct cfg points at,
// when it has such a field of a supported type, and returns the names of
// the others.
func applySettings(cfg any) []string {
	v := reflect.ValueOf(cfg).Elem()
	var missing []string
	for _, s := range operatorSettings {
		f := v.FieldByName(s.field)
		if !f.IsValid() || !f.CanSet() || !setValues(f, s.values) {
			missing = append(missing, v.Type().String()+"."+s.field)
		}
	}
	return missing
}

// setValues sets f from values for the types a CIDR list setting may have:
// []string, string (comma-separated), []netip.Prefix or []*net.IPNet.
func setValues(f reflect.Value, values []string) bool {
	switch f.Interface().(type) {
	case []string:
		f.Set(reflect.ValueOf(values))
	case string:
		f.SetString(strings.Join(values, ","))
	case []netip.Prefix:
		var out []netip.Prefix
		for _, s := range values {
			out = append(out, netip.MustParsePrefix(s))
		}
		f.Set(reflect.ValueOf(out))
	case []*net.IPNet:
		var out []*net.IPNet
		for _, s := range values {
			_, n, err := net.ParseCIDR(s)
			if err != nil {
				return false
			}
			out = append(out, n)
		}
		f.Set(reflect.ValueOf(out))
	default:
		return false
	}
	return true
}
