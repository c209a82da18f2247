// Package collect implements `kollect collect`: it runs Kollect's selection
// and extraction in-process against kubeconfig contexts, with no operator and
// no bus, and builds one envelope per inventory of the config folder (or per
// Target when the folder has no inventory) exactly as the aggregator would.
//
// collect lists objects with pagination through the dynamic client; it
// never watches and never writes to the cluster.
package collect
