package simsource

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Server serves a Source over HTTP on loopback.
type Server struct {
	// URL is the server's address, http://127.0.0.1:<port>.
	URL    string
	srv    *http.Server
	done   chan error
	source *Source
}

// Serve serves s on a free loopback port until Stop.
func Serve(s *Source) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simsource: listen: %w", err)
	}
	srv := &Server{URL: "http://" + l.Addr().String(), source: s, done: make(chan error, 1),
		srv: &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { srv.done <- srv.srv.Serve(l) }()
	return srv, nil
}

// Config is a client configuration for the server.
func (srv *Server) Config() *rest.Config { return &rest.Config{Host: srv.URL, QPS: -1} }

// WriteKubeconfig writes a kubeconfig pointing at the server to path.
func (srv *Server) WriteKubeconfig(path string) error {
	c := clientcmdapi.NewConfig()
	c.Clusters["simsource"] = &clientcmdapi.Cluster{Server: srv.URL}
	c.AuthInfos["simsource"] = &clientcmdapi.AuthInfo{}
	c.Contexts["simsource"] = &clientcmdapi.Context{Cluster: "simsource", AuthInfo: "simsource"}
	c.CurrentContext = "simsource"
	b, err := clientcmd.Write(*c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// Stop closes the listener and every open watch.
func (srv *Server) Stop() error {
	err := srv.srv.Close() // watches do not end by themselves: no graceful shutdown
	if serr := <-srv.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
