/**
 * yargs, from one place. The build replaces the compiled form of this file with a bundle of yargs and the packages
 * it loads (scripts/bundle-deps.ts): Node loads yargs module by module (yargs-parser, cliui, y18n, string-width and
 * more), which costs every command line; bundled, it is one file. Tests and `tsc` see the plain re-export below.
 * Runtime code imports yargs through this module only.
 */
export { default as yargs } from 'yargs';
