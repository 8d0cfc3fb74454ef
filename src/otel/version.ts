/**
 * The package's version, for the tracer and the meter (`omnimedia`, this version). A constant
 * rather than an import of package.json, which a bundle would carry whole; a test keeps the two
 * equal (test/otel/version.test.ts).
 */
export const VERSION = '0.1.0';
