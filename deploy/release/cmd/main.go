// Command release builds a Kollect release into a folder (make release VERSION=vX.Y.Z),
// and with the publish subcommand pushes a built release's images and charts to a
// registry and signs the images (make publish REGISTRY=... COSIGN_KEY=...).
// See docs/release.md for the artifacts and how to verify them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"kollect.dev/kollect/deploy/release"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "publish" {
		publish(os.Args[2:])
		return
	}
	var o release.Options
	var platforms, binaries, charts string
	flag.StringVar(&o.Version, "version", "", "release version, vMAJOR.MINOR.PATCH (required)")
	flag.StringVar(&o.Repo, "repo", ".", "git work tree to release from")
	flag.StringVar(&o.Commit, "commit", "HEAD", "git revision to build")
	flag.StringVar(&o.Out, "out", "dist", "output folder (emptied first)")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated GOOS/GOARCH list")
	flag.StringVar(&binaries, "binaries", "", "comma-separated binary names (default: every cmd/*)")
	flag.StringVar(&charts, "charts", "charts/kollect,charts/kollect-crds", "comma-separated chart folders ('' for none)")
	flag.StringVar(&o.ToolsDir, "tools", os.Getenv("KOLLECT_TOOLS_DIR"), "folder holding bin/helm, bin/cyclonedx-gomod and bin/cosign")
	flag.StringVar(&o.SigningKey, "key", "", "OpenSSH private key to sign with (default: a fresh ed25519 key, discarded after signing)")
	flag.StringVar(&o.CosignKey, "cosign-key", "", "cosign private key to sign with, password in COSIGN_PASSWORD (default: a fresh key pair, discarded after signing)")
	flag.Parse()
	ps, err := release.ParsePlatforms(platforms)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(2)
	}
	o.Platforms, o.Binaries, o.Charts = ps, release.SplitList(binaries), release.SplitList(charts)
	if o.Charts == nil {
		o.Charts = []string{}
	}
	o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "[release] "+format+"\n", args...) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	res, err := release.Run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	fmt.Printf("release %s in %s: %d binaries, %d charts, %d signatures\n", o.Version, o.Out,
		len(res.Binaries), len(res.Charts), len(res.Signatures))
	fmt.Printf("signing key fingerprint (publish it with the release): %s\n", res.Fingerprint)
	fmt.Printf("cosign public key sha256 (publish it with the release): %s\n", res.CosignKeySHA256)
}

func publish(args []string) {
	var o release.PublishOptions
	fs := flag.NewFlagSet("publish", flag.ExitOnError)
	fs.StringVar(&o.Dist, "dist", "dist", "release folder built by make release")
	fs.StringVar(&o.Registry, "registry", "", "registry prefix: images to <prefix>/<image>:<version>, charts to oci://<prefix>/charts (required)")
	fs.StringVar(&o.CosignKey, "cosign-key", "", "cosign private key that signs the pushed images, password in COSIGN_PASSWORD (required)")
	fs.StringVar(&o.ToolsDir, "tools", os.Getenv("KOLLECT_TOOLS_DIR"), "folder holding bin/helm and bin/cosign")
	fs.BoolVar(&o.PlainHTTP, "plain-http", false, "talk HTTP to the registry (a local registry)")
	_ = fs.Parse(args)
	if o.Registry == "" || o.CosignKey == "" {
		fmt.Fprintln(os.Stderr, "release publish: -registry and -cosign-key are required")
		os.Exit(2)
	}
	o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "[publish] "+format+"\n", args...) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	res, err := release.Publish(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, r := range res.Images {
		fmt.Println("image", r)
	}
	for _, c := range res.Charts {
		fmt.Println("chart", c)
	}
}
