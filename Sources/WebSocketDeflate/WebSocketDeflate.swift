import CZlib
import WebSocketCodec
// Placeholder until the WebSocketDeflate module lands.
