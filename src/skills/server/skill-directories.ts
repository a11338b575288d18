/**
 * The directory resources of a skill library, for `resources/directory/read`:
 * every level of every file's path (`skill://acme`, `skill://acme/billing`,
 * `skill://acme/billing/refunds`, `…/refunds/templates`), each with its
 * direct children, subdirectories as `inode/directory` resources.
 */

import type { Resource } from '../../protocol/types.js';
import { DIRECTORY_MIME_TYPE } from '../wire.js';
import type { PublishedFile } from './skill-library.js';

export type Directories = ReadonlyMap<string, readonly Resource[]>;

export function directoriesOf(files: Iterable<PublishedFile>): Directories {
  const children = new Map<string, Map<string, Resource>>();
  const add = (directory: string, child: Resource): void => {
    let listing = children.get(directory);
    if (!listing) children.set(directory, (listing = new Map()));
    listing.set(child.uri, child);
  };
  for (const file of files) {
    const uri = file.resource.uri;
    const start = uri.indexOf('://') + 3;
    // Each `/` after the first path segment closes a directory level.
    for (let slash = uri.indexOf('/', start); slash >= 0; slash = uri.indexOf('/', slash + 1)) {
      const directory = uri.slice(0, slash);
      const next = uri.indexOf('/', slash + 1);
      if (next < 0) {
        add(directory, file.resource);
      } else {
        const subdirectory = uri.slice(0, next);
        add(directory, { uri: subdirectory, name: decodeURIComponent(subdirectory.slice(slash + 1)), mimeType: DIRECTORY_MIME_TYPE });
      }
    }
  }
  const sorted = new Map<string, readonly Resource[]>();
  for (const [directory, listing] of children) sorted.set(directory, [...listing.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)));
  return sorted;
}
