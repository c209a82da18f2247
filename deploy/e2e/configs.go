package e2e

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes dir/name.kubeconfig reaching the API server with the client
// certificate name.crt/name.key of the PKI.
func (c *Cluster) writeKubeconfig(name string) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.APIURL(), CertificateAuthority: c.PKI.Path("ca.crt")}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificate: c.PKI.Path(name + ".crt"), ClientKey: c.PKI.Path(name + ".key")}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: name}
	cfg.CurrentContext = "e2e"
	path := filepath.Join(c.cfg.Dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("write kubeconfig %s: %w", name, err)
	}
	return path, nil
}

// writeFile writes content to dir/rel, creating its folder.
func (c *Cluster) writeFile(rel, content string) (string, error) {
	path := filepath.Join(c.cfg.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil { //nolint:gosec // G301: the node's configuration, read by the components it starts
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil { //nolint:gosec // G306: configs, no secrets
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	return path, nil
}

// containerdConfig is containerd 2's configuration: its own root, state and socket under
// the work folder, Debian's runc with cgroupfs (cgroups v1 here), Debian's CNI plugins and
// the locally built pause image as the sandbox image.
func (c *Cluster) containerdConfig() string {
	d := c.cfg.Dir
	return fmt.Sprintf(`version = 3
root = %[1]q
state = %[2]q

[grpc]
  address = %[3]q

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %[4]q

[plugins.'io.containerd.cri.v1.runtime']
  # Pods ask for negative OOM score adjustments (the sandbox -998, Guaranteed pods -997), which
  # need CAP_SYS_RESOURCE; this machine's root lacks it, and runc then fails every sandbox with
  # "failed to update /proc/self/oom_score_adj: Permission denied". containerd's rootless-style
  # setting clamps them to its own score (docs/e2e-cluster.md).
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'runc'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = '/usr/sbin/runc'
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ['/usr/lib/cni']
    conf_dir = %[5]q
`, filepath.Join(d, "containerd/root"), filepath.Join(d, "containerd/state"), c.ContainerdSocket(),
		PauseImage, filepath.Join(d, "cni/net.d"))
}

// cniConfig is a bridge network for the pods with host-local addresses from PodCIDR,
// masquerading their traffic that leaves the node.
func (c *Cluster) cniConfig() string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "kollect-e2e",
  "plugins": [
    {"type": "bridge", "bridge": "kollect0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": %q}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, c.cfg.PodCIDR, filepath.Join(c.cfg.Dir, "cni/ipam"))
}

// kubeletConfig is the kubelet's configuration: cgroups v1 allowed, the cgroupfs driver,
// client certificates and webhook authorization, CoreDNS on the node's address as the
// cluster DNS, and eviction and image GC thresholds low enough for a shared builder's disk.
func (c *Cluster) kubeletConfig() string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://%[1]s
address: %[2]s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[3]q}
authorization: {mode: Webhook}
tlsCertFile: %[4]q
tlsPrivateKeyFile: %[5]q
clusterDomain: cluster.local
clusterDNS: [%[2]s]
resolvConf: /etc/resolv.conf
failSwapOn: false
evictionHard: {memory.available: 100Mi, nodefs.available: 1%%, imagefs.available: 1%%, nodefs.inodesFree: 1%%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
maxPods: 60
`, c.ContainerdSocket(), c.cfg.NodeIP, c.PKI.Path("ca.crt"), c.PKI.Path("kubelet.crt"), c.PKI.Path("kubelet.key"))
}

// kubeProxyConfig runs kube-proxy in iptables mode for the pod network, leaving the
// host's conntrack table size alone.
func (c *Cluster) kubeProxyConfig(kubeconfig string) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: %q}
hostnameOverride: %s
clusterCIDR: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`, kubeconfig, c.cfg.NodeName, c.cfg.PodCIDR, c.cfg.NodeIP)
}

// corefile serves cluster.local from the API server on the node's address and forwards
// everything else to the host's resolvers.
func (c *Cluster) corefile(kubeconfig string) string {
	return fmt.Sprintf(`.:53 {
    bind %s
    errors
    health 127.0.0.1:18080
    ready 127.0.0.1:18181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %s e2e
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 10
}
`, c.cfg.NodeIP, kubeconfig)
}
