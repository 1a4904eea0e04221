/**
 * The parts of the `yaml` package platctl uses (the configuration's source, and `yamldecode` in HCL), from one
 * place. The build replaces the compiled form of this file with a bundle of just these parts
 * (scripts/bundle-deps.ts): the package's CommonJS build is some 60 files, which took 35 to 60 ms to load on every
 * run that reads the configuration; the bundle takes about 15 ms. Runtime code imports yaml through this module
 * only; type-only imports may name the package directly.
 */
export {
  Alias,
  LineCounter,
  Scalar,
  YAMLMap,
  YAMLSeq,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseAllDocuments,
  parseDocument,
} from 'yaml';
