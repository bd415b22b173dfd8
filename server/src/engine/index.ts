// The engine's front door: what the faces (language server, CLI, MCP adapter) may use. Anything
// not exported here is the engine's own business and may change without them noticing.
export { Engine, mayBeWatched, watchGlobs, DEFAULT_MAX_FILE_BYTES, type FileChange } from './engine';
export type { EdgeRow, EngineOptions, EntityRow, GraphChange, IndexProgress, ModelSettings, Position, Range, TextChange } from './api';
export { EngineError, fromStoreError, isEngineError, type ErrorCode } from './errors';
export type { Span, Point } from './languages/types';
export { languageForPath as languageOf } from './languages/registry';
export { findWorkspaceRoot } from './config/root';
export { fitSearch } from './budget/lists';
export { WorkspaceWatcher } from './workspace/watch';
export { countTokens } from './skeleton/tokens';
export { frameName, readablePart, tracebackFrames } from './search/query';
export type { Cancellation } from './graph/cooperative';
export { exposedGc, GrowthCollector } from './gc';
