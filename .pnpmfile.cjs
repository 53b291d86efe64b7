// Optional peers that only tooling wants, dropped so that production installs (the images' `pnpm deploy
// --prod`) never link them. `@prisma/client` declares the Prisma CLI and TypeScript as optional peers,
// and since `prisma` is a devDependency of @agentplane/db, pnpm resolved that peer and shipped the CLI
// with its tree (studio, pglite, effect, typescript, react: about 180 MB) in every image; the generated
// client needs neither at run time. `@langchain/langgraph-sdk` declares React for its UI hooks, which the
// engine does not use. Development is unaffected: the CLI and TypeScript stay devDependencies.
const DROPPED_OPTIONAL_PEERS = {
  '@prisma/client': ['prisma', 'typescript'],
  '@langchain/langgraph-sdk': ['react', 'react-dom'],
};

module.exports = {
  hooks: {
    readPackage(manifest) {
      for (const name of DROPPED_OPTIONAL_PEERS[manifest.name] ?? []) {
        // pnpm treats a name in peerDependenciesMeta alone as a peer too, so both go.
        delete manifest.peerDependencies?.[name];
        delete manifest.peerDependenciesMeta?.[name];
      }
      return manifest;
    },
  },
};
