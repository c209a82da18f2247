package cli

import (
	"flag"
	"io"
	"strconv"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

// verbosity is kubectl's -v/--v: the level of client-go's logs (klog),
// written to standard error. 6 logs each request to the API server with
// its status and duration, 8 adds the bodies.
type verbosity struct {
	level   int
	restore func()
}

func (v *verbosity) addFlags(fs *pflag.FlagSet) {
	fs.IntVarP(&v.level, "v", "v", 0, "log verbosity, as kubectl's: 6 logs each request to the API server, 8 also its body")
}

// apply raises klog's verbosity to the level, its logs going to errOut.
// A level of 0 leaves klog alone.
func (v *verbosity) apply(errOut io.Writer) {
	if v.level <= 0 {
		return
	}
	state := klog.CaptureState()
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"v": strconv.Itoa(v.level), "logtostderr": "false", "alsologtostderr": "false", "one_output": "true"} {
		_ = fs.Set(name, value) // klog's own flags, with valid values
	}
	klog.SetOutput(errOut)
	v.restore = state.Restore
}

// reset puts klog back as apply found it (the tests run many commands in
// one process).
func (v *verbosity) reset() {
	if v.restore != nil {
		klog.Flush()
		v.restore()
		v.restore = nil
	}
}
