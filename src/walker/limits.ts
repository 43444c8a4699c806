/** How deep a tree may nest (orchestrators, nodes and agents used as tools, counted together), in every framework. */
export const MAX_DEPTH = 256;
