package placement

// Values of the provider's placement_preview setting: no preview (the default), or a preview
// whose groups that cannot be placed are warnings, or errors.
const (
	ModeOff   = "off"
	ModeWarn  = "warn"
	ModeError = "error"
)

// Modes are the values placement_preview accepts, the default first.
var Modes = []string{ModeOff, ModeWarn, ModeError}
