/**
 * The package's version, for the tracer and meter of `omnimedia/otel` and the server info of
 * `omnimedia/mcp`. A constant rather than an import of package.json, which a bundle would carry
 * whole; a test keeps the two equal (test/otel/open-telemetry.test.ts).
 */
export const VERSION = '0.1.0';
