// Command kfake runs an in-memory kfake Kafka cluster of one broker as its
// own process, for tests that measure their own heap (the records it holds
// are then not counted): it prints the broker's address and runs until
// SIGTERM or SIGINT.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
	defer c.Close()
	fmt.Println(c.ListenAddrs()[0])
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
