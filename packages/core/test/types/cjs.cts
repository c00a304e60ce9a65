// The package's declarations as a CommonJS consumer sees them.
import core = require("@toolnorm/core");
import protocol = require("@toolnorm/core/protocol");

const doc: core.NormalizedDocument = core.normalize("");
const parts: core.LegacyToolPart[] = core.toLegacy(doc.parts);
const n = new core.Normalizer();
const updates: core.Update[] = n.end();
void protocol.serveProtocol((req) => req.lines.map((l) => ({ id: l.text }) as core.NormalizedToolPart));
void [parts, updates];
