package app

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/go-logr/logr"
)

// deprecatedPrefix starts the usage of every deprecated alias.
const deprecatedPrefix = "Deprecated: use --"

// Alias registers old on fs as a deprecated alias of the flag current,
// which must already be registered: both set the same variable. Renamed
// flags keep their old name this way for one release.
func Alias(fs *flag.FlagSet, old, current string) {
	f := fs.Lookup(current)
	if f == nil {
		panic(fmt.Sprintf("app.Alias: flag --%s is not registered", current))
	}
	fs.Var(f.Value, old, deprecatedPrefix+current+".")
}

// warnDeprecated logs every deprecated alias set on the command line.
func warnDeprecated(fs *flag.FlagSet, log logr.Logger) {
	fs.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, deprecatedPrefix) {
			log.Info("a deprecated flag was set; it goes in the next release", "flag", "--"+f.Name, "use",
				strings.TrimSuffix(strings.TrimPrefix(f.Usage, "Deprecated: use "), "."))
		}
	})
}

// FlagTable lists every flag of fs in name order, as "--name=default"
// and its usage indented on the next line: the content of a service's flags
// golden. A default identity (DefaultIdentity: host name and a random
// suffix) reads <hostname>_<random>, so the table is the same on every
// machine and every run.
func FlagTable(fs *flag.FlagSet) string {
	host, _ := os.Hostname()
	identity := regexp.MustCompile("^" + regexp.QuoteMeta(host) + "_[a-z0-9]{6}$")
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		def := identity.ReplaceAllString(f.DefValue, "<hostname>_<random>")
		lines = append(lines, fmt.Sprintf("--%s=%s\n    %s", f.Name, def, f.Usage))
	})
	return strings.Join(lines, "\n") + "\n"
}
