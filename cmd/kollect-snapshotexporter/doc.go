// Command kollect-snapshotexporter runs the Kollect snapshot exporter with the
// backends snapshotexporter.Backends lists.
package main
