package command

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeContextKubeconfig writes the one context kollect dev runs against
// (current unless context names another), with its certificates inlined,
// to a file of a private folder: the history API reads it to delegate
// authentication and authorization. cleanup removes the folder.
func writeContextKubeconfig(loader clientcmd.ClientConfig, context string) (path string, cleanup func(), err error) {
	raw, err := loader.RawConfig()
	if err != nil {
		return "", nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	if context != "" {
		raw.CurrentContext = context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return "", nil, fmt.Errorf("kubeconfig context %q: %w", raw.CurrentContext, err)
	}
	if err := clientcmdapi.FlattenConfig(&raw); err != nil {
		return "", nil, fmt.Errorf("kubeconfig context %q: %w", raw.CurrentContext, err)
	}
	dir, err := os.MkdirTemp("", "kollect-dev-kubeconfig-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	path = filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(raw, path); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("write the history API's kubeconfig: %w", err)
	}
	return path, cleanup, nil
}
