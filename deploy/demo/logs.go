package demo

import (
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// RouteLogs sends controller-runtime's and klog's logs (envtest, client-go)
// at info level and above to standard error as human-readable lines.
// Without a logger, controller-runtime prints "log.SetLogger(...) was never
// called" with a stack trace once the API server has started.
func RouteLogs() {
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(zap.InfoLevel)
	z, err := cfg.Build(zap.AddStacktrace(zap.DPanicLevel))
	if err != nil {
		return
	}
	ctrllog.SetLogger(zapr.NewLogger(z))
	klog.SetLogger(zapr.NewLogger(z))
}
