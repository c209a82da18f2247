package app

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// DefaultNATSURL is the bus address of every service by default: the
// chart's NATS Service in kollect-system. The chart, the demo, the load
// tests and `kollect dev` pass --nats-url when theirs differs.
const DefaultNATSURL = "nats://kollect-nats.kollect-system:4222"

// Environment variables the bus credentials are read from, so that no
// secret is ever in a process's argv (visible in ps and /proc/<pid>/cmdline).
const (
	// EnvNATSCredentials is the path of a NATS credentials file (JWT and
	// seed), used when --nats-credentials is empty.
	EnvNATSCredentials = "KOLLECT_NATS_CREDENTIALS" //nolint:gosec // G101: a variable's name, not a credential
	// EnvNATSUser and EnvNATSPassword are a NATS user and its password
	// (the chart sets them from a Secret); ignored when the URL names a user.
	EnvNATSUser     = "KOLLECT_NATS_USER"
	EnvNATSPassword = "KOLLECT_NATS_PASSWORD" //nolint:gosec // G101: a variable's name, not a credential
)

// BusOptions say how a service reaches the bus.
type BusOptions struct {
	// URL is the NATS server URL (several comma-separated for a cluster).
	URL string
	// Credentials is the path of a NATS credentials file; empty reads
	// $KOLLECT_NATS_CREDENTIALS, then none.
	Credentials string
	// TLS says how the connection is encrypted; the zero value uses TLS
	// only when the URL's scheme is tls://, against the system's roots.
	TLS BusTLS
	// User and Password authenticate to the bus instead of
	// $KOLLECT_NATS_USER and $KOLLECT_NATS_PASSWORD. Only code sets them
	// (`kollect dev` for its embedded bus): no flag, so no password is
	// ever in a process's arguments.
	User, Password string
}

// BusTLS are the files of a TLS connection to the bus. Any of them set
// makes the connection use TLS whatever the URL's scheme.
type BusTLS struct {
	// CA is the path of the PEM bundle the server's certificate is
	// verified against; empty uses the system's roots.
	CA string
	// Cert and Key are the paths of a PEM client certificate and its key,
	// for a server that verifies clients (mutual TLS); both or neither.
	Cert, Key string
}

// DefaultBusOptions returns DefaultNATSURL and no credentials file.
func DefaultBusOptions() BusOptions { return BusOptions{URL: DefaultNATSURL} }

// BindFlags registers --nats-url and --nats-credentials on fs, defaulting
// to o's values.
func (o *BusOptions) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.URL, "nats-url", o.URL, "NATS server URL of the Kollect bus. A password belongs in $"+EnvNATSPassword+
		" or a credentials file, not here: arguments are visible to every process of the host.")
	fs.StringVar(&o.Credentials, "nats-credentials", o.Credentials,
		"Path of a NATS credentials file (JWT and seed); empty reads the path from $"+EnvNATSCredentials+". "+
			"A user and password come from $"+EnvNATSUser+" and $"+EnvNATSPassword+".")
	fs.StringVar(&o.TLS.CA, "nats-tls-ca", o.TLS.CA,
		"Path of the PEM CA bundle the NATS server's certificate is verified against; setting it (or a client certificate) turns TLS on. "+
			"Empty uses the system's roots when the URL is tls://.")
	fs.StringVar(&o.TLS.Cert, "nats-tls-cert", o.TLS.Cert,
		"Path of a PEM client certificate presented to a NATS server that verifies clients (with --nats-tls-key).")
	fs.StringVar(&o.TLS.Key, "nats-tls-key", o.TLS.Key, "Path of the PEM private key of --nats-tls-cert.")
}

// Validate reports a missing URL and a client certificate without its key
// or a key without its certificate.
func (o BusOptions) Validate() error {
	if o.URL == "" {
		return errors.New("--nats-url: must be set")
	}
	if (o.TLS.Cert == "") != (o.TLS.Key == "") {
		return errors.New("--nats-tls-cert and --nats-tls-key: set both or neither")
	}
	return nil
}

// Options returns the nats.Options carrying the credentials: the
// credentials file of --nats-credentials or $KOLLECT_NATS_CREDENTIALS, and
// User and Password, else those of $KOLLECT_NATS_USER and
// $KOLLECT_NATS_PASSWORD.
func (o BusOptions) Options() ([]nats.Option, error) {
	var opts []nats.Option
	creds := o.Credentials
	if creds == "" {
		creds = os.Getenv(EnvNATSCredentials)
	}
	if creds != "" {
		if _, err := os.Stat(creds); err != nil { //nolint:gosec // G703: the operator names the file; it is only looked at
			return nil, fmt.Errorf("read NATS credentials file: %w", err)
		}
		opts = append(opts, nats.UserCredentials(creds))
	}
	user, pass := os.Getenv(EnvNATSUser), os.Getenv(EnvNATSPassword)
	if o.User != "" {
		user, pass = o.User, o.Password
	}
	if pass != "" && user == "" {
		return nil, fmt.Errorf("$%s is set without $%s", EnvNATSPassword, EnvNATSUser)
	}
	if user != "" {
		opts = append(opts, nats.UserInfo(user, pass))
	}
	tlsOpts, err := o.TLS.options()
	if err != nil {
		return nil, err
	}
	return append(opts, tlsOpts...), nil
}

// options returns the nats.Options of the TLS files, checking first that
// each one named can be read, so that a missing file is reported by its
// flag rather than by the first connection attempt.
func (t BusTLS) options() ([]nats.Option, error) {
	for _, f := range []struct{ flag, path string }{{"--nats-tls-ca", t.CA}, {"--nats-tls-cert", t.Cert}, {"--nats-tls-key", t.Key}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	var opts []nats.Option
	if t.CA != "" {
		opts = append(opts, nats.RootCAs(t.CA))
	}
	if t.Cert != "" {
		opts = append(opts, nats.ClientCert(t.Cert, t.Key))
	}
	return opts, nil
}

// Connect opens service s's connection to the bus (bus.Connect) with the
// credentials and then extra options.
func (o BusOptions) Connect(s busv1.Service, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	opts, err := o.Options()
	if err != nil {
		return nil, nil, err
	}
	return bus.Connect(o.URL, s, append(opts, extra...)...)
}
