// Command images builds Kollect's container images without a daemon into an
// OCI image layout, and pushes them when -push names a registry prefix
// (make images [PUSH=registry/prefix] [VERSION=vX.Y.Z]). See docs/images.md.
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
	var o release.ImagesOptions
	var platforms, binaries string
	flag.StringVar(&o.Version, "version", "", "image tag and stamped version, vMAJOR.MINOR.PATCH[-pre] (default: v<appVersion> of -repo's charts/kollect, the tag the chart installs)")
	flag.StringVar(&o.Repo, "repo", ".", "git work tree to build from")
	flag.StringVar(&o.Commit, "commit", "HEAD", "git revision to build (its tree, not the work tree's files)")
	flag.StringVar(&o.Out, "out", "dist/images", "OCI image layout folder to write (emptied first)")
	flag.StringVar(&o.Push, "push", "", "registry prefix to push to as <prefix>/<image>:<version> (docker config credentials)")
	flag.StringVar(&o.Ref, "ref", "", "push the one image built (-binaries names one) to exactly this reference (skaffold's $IMAGE)")
	var cosignKey, tools string
	flag.StringVar(&cosignKey, "cosign-key", "", "sign the pushed images with this cosign private key (password in COSIGN_PASSWORD)")
	flag.StringVar(&tools, "tools", os.Getenv("KOLLECT_TOOLS_DIR"), "folder holding bin/cosign (for -cosign-key)")
	flag.BoolVar(&o.WorkTree, "worktree", false, "build the work tree's files as they are (development), not the commit's tree")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated GOOS/GOARCH list")
	flag.StringVar(&binaries, "binaries", "", "comma-separated binary names, e.g. kollect-control,kollect (default: all)")
	flag.Parse()
	ps, err := release.ParsePlatforms(platforms)
	if err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(2)
	}
	for _, p := range ps {
		if p.OS != "linux" {
			fmt.Fprintf(os.Stderr, "images: platform %s: images run on linux/<arch>\n", p)
			os.Exit(2)
		}
	}
	if o.Version == "" {
		if o.Version, err = release.ChartTag(o.Repo); err != nil {
			fmt.Fprintln(os.Stderr, "images:", err)
			os.Exit(2)
		}
	}
	o.Platforms = ps
	o.Binaries = release.SplitList(binaries)
	o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "[images] "+format+"\n", args...) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	records, refs, err := release.Images(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
	for _, r := range records {
		fmt.Printf("%s:%s\t%s\n", r.Name, r.Tag, r.Digest)
	}
	for _, r := range refs {
		fmt.Println("pushed", r)
	}
	if cosignKey != "" && len(refs) > 0 {
		if err := release.SignImages(context.Background(), tools, cosignKey, false, refs, o.Log); err != nil {
			fmt.Fprintln(os.Stderr, "images:", err)
			os.Exit(1)
		}
	}
}
