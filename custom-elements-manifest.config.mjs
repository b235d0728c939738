// `npm run manifest` writes custom-elements.json, the elements' API for editors and frameworks.
export default {
  // The element classes only: their controllers and helpers are not public API.
  globs: ['src/elements/file-uploader/file-uploader.ts', 'src/elements/file-list/file-list.ts'],
  outdir: '.',
  // package.json names the manifest already; left on, the analyzer rewrites that field to
  // whatever --outdir it ran with (the manifest test's temporary folder, for one).
  packagejson: false,
  litelement: true,
  plugins: [
    {
      // Lit's internal reactive state (`state: true`, named `_…`) is not public API.
      name: 'filehost-drop-internal-state',
      packageLinkPhase({ customElementsManifest }) {
        for (const module of customElementsManifest.modules) {
          for (const declaration of module.declarations ?? []) {
            if (!declaration.customElement) continue;
            declaration.attributes = declaration.attributes?.filter((a) => !a.name.startsWith('_'));
            declaration.members = declaration.members?.filter(
              (m) => !m.name.startsWith('_') && m.privacy !== 'private' && !m.name.startsWith('#'),
            );
          }
        }
      },
    },
  ],
};
