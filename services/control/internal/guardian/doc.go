// Package guardian keeps the bus whole under control's leader: it
// provisions again what Provision creates when any of it went missing, and
// puts every object's compiled config again when the config bucket was
// re-created or emptied, then writes bus.ConfigCompleteKey. It does not
// reconcile anything itself: the reconcilers it is given do.
package guardian
