// Package release builds a Kollect release: static, reproducible binaries of every
// cmd/* for each platform, a CycloneDX SBOM and an in-toto/SLSA provenance
// statement per artifact, the packaged Helm charts, a SHA256SUMS file, and SSH signatures
// (ssh-keygen -Y sign) over the checksums, SBOMs and provenance.
//
// It builds from `git archive <commit>` extracted to a temporary folder, so a release is
// exactly the committed tree whatever the working tree holds. It owns the layout of dist/
// and the verification the docs describe (docs/release.md); it does not publish anything,
// and it does not build the tools it runs (cyclonedx-gomod and helm come from
// deploy/tools/build.sh, ssh-keygen from OpenSSH).
package release
