// Command vulndb builds govulncheck's offline vulnerability database from the OSV files of
// the golang.org/x/vulndb module at the version pinned in this folder's go.mod.
//
// It writes the database layout govulncheck reads with -db file:///DIR:
// index/db.json, index/modules.json and ID/<id>.json. The module's OSV files carry no
// modification times (the hosted database fills them in), so every zero "modified" is
// set to the pinned pseudo-version's commit time: the snapshot's date.
//
// Refresh: bump golang.org/x/vulndb in go.mod (go get golang.org/x/vulndb@<version> in
// this folder) and the VULNDB pin in deploy/tools/build.sh, which runs this command.
// It owns only the conversion; govulncheck itself is installed by deploy/tools/build.sh.
package main
