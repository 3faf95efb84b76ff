/**
 * The client's version, sent in its default `User-Agent`. A constant rather than an import of `package.json`, which
 * would put the whole manifest (dependency lists included) into every bundle that uses the client; a test keeps it
 * equal to `package.json`'s version.
 */
export const CLIENT_VERSION = '0.1.0';
