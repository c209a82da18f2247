// Package e2e runs a real single-node Kubernetes cluster on this machine for
// make e2e-cluster: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, containerd with Debian's runc and CNI plugins, kubelet,
// kube-proxy and CoreDNS as host processes, with certificates made here and
// Kollect's images imported into containerd. The scenario that installs the
// Helm charts on it is the e2ecluster-tagged test (docs/e2e-cluster.md).
//
// It does not build the binaries (deploy/tools/build.sh cluster does) nor the
// Kollect images (deploy/images does).
package e2e
