export { apiDir, controllerDir, LAYOUT, managerNamespace, PROJECT_FILE, qualifiedGroup, type ProjectConfig, type ResourceConfig, type WebhooksConfig } from './model.js';
export { loadProject, parseProject, readMinKubeVersion, saveProject, serializeProject } from './project-file.js';
