// @toolnorm/core for Node (CommonJS): the generated Node bindings read and compile the WebAssembly
// module when this file is first required, so the API is ready at once.
"use strict";

const { bind } = require("./facade.cjs");

module.exports = bind(require("./node.cjs"));
/** Nothing to wait for here (the module is ready); for code shared with the browser build. */
module.exports.init = async function init() {};
