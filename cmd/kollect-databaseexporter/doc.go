// Command kollect-databaseexporter runs the Kollect database exporter.
package main
