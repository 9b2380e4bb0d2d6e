package trace

// Compressor folds one rank's event stream into nested loops as events
// arrive (ScalaTrace's intra-node compression).
type Compressor struct {
	body []Node
}

// NewCompressor returns an empty compressor.
func NewCompressor() *Compressor { return &Compressor{} }

// Add appends one event.
// TODO(compression): fold repeats into loops; for now events are kept flat.
func (c *Compressor) Add(e Event) {
	ev := e
	c.body = append(c.body, Node{Site: &Site{Events: []Event{ev}}})
}

// Finish returns the compressed sequence.
func (c *Compressor) Finish() []Node { return c.body }
