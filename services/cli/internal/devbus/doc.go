// Package devbus owns the credentials file of the bus `kollect dev` embeds:
// its address, user and per-run password, written with mode 0600 where the
// kollect CLI finds them. It does not start the bus (services/cli/dev does)
// and holds no other credentials.
package devbus
