package postgres

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// Secret keys read from spec.secretRef's Secret.
const (
	keyDSN      = "dsn"
	keyURI      = "uri"
	keyUsername = "username"
	keyPassword = "password"
)

// connectTimeout bounds one connection attempt when the DSN sets none.
const connectTimeout = 15 * time.Second

// dsnSource is a connection string and where it came from, for messages
// that must name the Secret and key but never the value.
type dsnSource struct {
	dsn   string
	where string
}

// connConfig resolves the pool configuration of spec. The connection string
// is, in order of precedence:
//
//  1. the key postgres.databaseRef names (Secret in the sink's namespace);
//  2. the key dsn, else uri, of spec.secretRef's Secret;
//  3. spec.endpoint alone.
//
// When spec.endpoint is set it supplies everything but the credentials (API
// rule: "the Secret supplies the credentials and the endpoint everything
// else"): user and password come from the connection string of 1 or 2 when
// there is one, else from the keys username and password of secretRef's
// Secret, else from the endpoint's own user (no password).
func connConfig(ctx context.Context, spec *v1alpha1.KollectDatabaseSinkSpec, namespace string, creds backend.Credentials) (*pgxpool.Config, error) {
	secret, err := backend.SecretData(ctx, creds, namespace, spec.SecretRef)
	if err != nil {
		return nil, err
	}
	secretName := ""
	if ref := spec.SecretRef; ref != nil {
		secretName = cmp.Or(ref.Namespace, namespace) + "/" + ref.Name
	}
	src, err := secretDSN(ctx, spec, namespace, secretName, secret, creds)
	if err != nil {
		return nil, err
	}
	var cfg *pgxpool.Config
	switch {
	case spec.Endpoint != "":
		cfg, err = endpointConfig(spec.Endpoint, src, secret)
	case src.dsn != "":
		cfg, err = parse(src.dsn, src.where)
	default:
		err = sink.Permanent(errors.New("no PostgreSQL server: set spec.endpoint, a dsn or uri key in spec.secretRef's Secret, or spec.postgres.databaseRef"))
	}
	if err != nil {
		return nil, err
	}
	if err := applyTLS(ctx, &cfg.ConnConfig.Config, spec.TLS, namespace, creds); err != nil {
		return nil, err
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if err := v1alpha1.UnknownOptionError(string(v1alpha1.DatabasePostgres), spec.Options); err != nil {
		return nil, sink.Permanent(err)
	}
	// spec.options are the honoured runtime parameters (statement_timeout,
	// lock_timeout, application_name); they win over the connection
	// string's.
	for k, v := range spec.Options {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "kollect-database-exporter"
	}
	return cfg, nil
}

// secretDSN returns the connection string of postgres.databaseRef, else of
// the dsn or uri key of secretRef's Secret; an empty dsn when neither
// exists.
func secretDSN(ctx context.Context, spec *v1alpha1.KollectDatabaseSinkSpec, namespace, secretName string, secret map[string][]byte, creds backend.Credentials) (dsnSource, error) {
	if ref := spec.Postgres.DatabaseRef; ref != nil {
		ns := namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		}
		where := fmt.Sprintf("Secret %s/%s key %q (postgres.databaseRef)", ns, ref.Name, ref.Key)
		data, err := backend.SecretData(ctx, creds, ns, &v1alpha1.SecretReference{Name: ref.Name}, ref.Key)
		if err != nil {
			return dsnSource{}, err
		}
		return dsnSource{dsn: string(data[ref.Key]), where: where}, nil
	}
	for _, key := range []string{keyDSN, keyURI} {
		if v := secret[key]; len(v) > 0 {
			return dsnSource{dsn: string(v), where: fmt.Sprintf("Secret %s key %q", secretName, key)}, nil
		}
	}
	if spec.Endpoint == "" && spec.SecretRef != nil {
		return dsnSource{}, fmt.Errorf("spec.endpoint is empty: %w", backend.MissingKey(cmp.Or(spec.SecretRef.Namespace, namespace), spec.SecretRef.Name, keyDSN, keyURI))
	}
	return dsnSource{}, nil
}

// endpointConfig parses the endpoint and puts the Secret's credentials in.
func endpointConfig(endpoint string, src dsnSource, secret map[string][]byte) (*pgxpool.Config, error) {
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return nil, sink.Permanent(errors.New("spec.endpoint must not carry a password; put it in the Secret"))
		}
	}
	cfg, err := parse(endpoint, "spec.endpoint")
	if err != nil {
		return nil, err
	}
	switch {
	case src.dsn != "":
		c, err := parse(src.dsn, src.where)
		if err != nil {
			return nil, err
		}
		cfg.ConnConfig.User, cfg.ConnConfig.Password = c.ConnConfig.User, c.ConnConfig.Password
	case len(secret[keyUsername]) > 0 || len(secret[keyPassword]) > 0:
		if u := secret[keyUsername]; len(u) > 0 {
			cfg.ConnConfig.User = string(u)
		}
		cfg.ConnConfig.Password = string(secret[keyPassword])
	}
	return cfg, nil
}

// parse parses a connection string. Its error never quotes the string (a
// URL parse error would carry the password).
func parse(dsn, where string) (*pgxpool.Config, error) {
	if err := refuseFileParams(dsn, where); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("%s is not a valid PostgreSQL connection string (postgres://user:password@host:5432/db?sslmode=verify-full or key=value form)", where))
	}
	cfg.ConnConfig.BuildFrontend = boundedFrontend
	return cfg, nil
}

// applyTLS makes TLS mandatory and verified as spec.tls says when it is set;
// without spec.tls the connection string's sslmode rules.
func applyTLS(ctx context.Context, cfg *pgconn.Config, spec *v1alpha1.TLSConfig, namespace string, creds backend.Credentials) error {
	base, err := egress.TLSConfig(ctx, spec, namespace, creds)
	if err != nil || base == nil {
		return err
	}
	withHost := func(host string) *tls.Config {
		c := base.Clone()
		c.ServerName = host
		return c
	}
	cfg.TLSConfig = withHost(cfg.Host)
	// sslmode prefer or allow add plain-text fallbacks: drop them, and
	// give every other host the same verification.
	type hostPort struct {
		host string
		port uint16
	}
	seen := map[hostPort]bool{{cfg.Host, cfg.Port}: true}
	var fallbacks []*pgconn.FallbackConfig
	for _, f := range cfg.Fallbacks {
		hp := hostPort{f.Host, f.Port}
		if seen[hp] {
			continue
		}
		seen[hp] = true
		fallbacks = append(fallbacks, &pgconn.FallbackConfig{Host: f.Host, Port: f.Port, TLSConfig: withHost(f.Host)})
	}
	cfg.Fallbacks = fallbacks
	return nil
}
