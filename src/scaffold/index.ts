export { Tree, type FileChange, type IfExists, type WriteOptions } from './tree.js';
export { commitTree, commitTrees, type CommitIo, type CommitOptions } from './commit.js';
export { insertAtMarker, insertInto, markerFor } from './insertion.js';
export { loadTemplates, renderPartial, renderTemplateFiles, renderTemplates, templatesRoot, type RenderOptions, type Template } from './templates.js';
