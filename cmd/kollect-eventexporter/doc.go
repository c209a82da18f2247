// Command kollect-eventexporter runs the Kollect event exporter.
package main
