/**
 * The media arenas' routes: each arena's Free and Pro lists, from the arenas as data.
 */
import { ANY_TIER, PRO_TIERS, type ParamSpec, type Route } from './route.ts';
import { includeCategories, includeGenres } from './route-params.ts';

/** The media arenas, as data: path segment, the query flag it takes, and its family. */
export const MEDIA_ARENAS = [
  { arena: 'text-to-image', family: 'image', flag: 'include_categories' },
  { arena: 'image-editing', family: 'image', flag: 'include_categories' },
  { arena: 'text-to-video', family: 'video', flag: 'include_categories' },
  { arena: 'image-to-video', family: 'video', flag: 'include_categories' },
  { arena: 'text-to-video-audio', family: 'video', flag: 'include_categories' },
  { arena: 'image-to-video-audio', family: 'video', flag: 'include_categories' },
  { arena: 'text-to-speech', family: 'text-to-speech', flag: null },
  { arena: 'speech-to-speech', family: 'speech-to-speech', flag: null },
  { arena: 'speech-to-text', family: 'speech-to-text', flag: null },
  { arena: 'music/instrumental', family: 'music', flag: 'include_genres' },
  { arena: 'music/with-vocals', family: 'music', flag: 'include_genres' },
] as const;

export type MediaArena = (typeof MEDIA_ARENAS)[number]['arena'];

/** Route id of an arena's Pro route; its Free sibling adds `.free`. */
export function mediaRouteId(arena: string): string {
  return `media.${arena.replace('/', '.')}`;
}

export function mediaRoutes(): Route[] {
  return MEDIA_ARENAS.flatMap(({ arena, flag }): Route[] => {
    const path = `/api/v2/media/${arena}/models`;
    const id = mediaRouteId(arena);
    const query: Record<string, ParamSpec> =
      flag === 'include_categories'
        ? { include_categories: includeCategories }
        : flag === 'include_genres'
          ? { include_genres: includeGenres }
          : {};
    return [
      {
        id: `${id}.free`,
        method: 'GET',
        path: `${path}/free`,
        summary: `${arena} arena, Free shape.`,
        tiers: ANY_TIER,
        // Accepted (and checked) so one client URL works on both routes, but ignored here: it
        // is not a key parameter, and the Free shape has no categories or genres.
        query,
        answer: 'snapshot',
        keyParams: [],
        paginated: false,
      },
      {
        id,
        method: 'GET',
        path,
        summary: `${arena} arena, Pro shape.`,
        tiers: PRO_TIERS,
        query,
        answer: 'snapshot',
        keyParams: Object.keys(query),
        paginated: false,
      },
    ];
  });
}
