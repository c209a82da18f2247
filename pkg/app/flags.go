package app

import (
	"flag"
	"fmt"
	"os"
	"sort"
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

// FlagTable lists every flag of fs, one a line and sorted by name, as
// "--name=default  usage": the content of a service's flags golden. The
// host name in a default (leader-election identities) reads <hostname>,
// so the table is the same on every machine.
func FlagTable(fs *flag.FlagSet) string {
	host, _ := os.Hostname()
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		def := f.DefValue
		if host != "" {
			def = strings.ReplaceAll(def, host, "<hostname>")
		}
		lines = append(lines, fmt.Sprintf("--%s=%s\n    %s", f.Name, def, f.Usage))
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
