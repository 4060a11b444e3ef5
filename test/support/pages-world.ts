// The channel pages' small world: the API tests' world plus facet names, an audio show, an episode without media, one enriched from its transcript, and a channel whose every text is hostile.
import { facetDocId } from '../../core/store/documents.js';
import { facetDocuments } from '../../indexer/documents.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { enrichedEpisode, episodeRecord, type ApiTestStore } from './api-fixture.js';

export const HOSTILE_TITLE = 'Bad </title><script>alert("title")</script> \u202Egnp.exe \u202C ' + 'x'.repeat(10_000);
export const HOSTILE_TEXT = '<img src=x onerror=alert(1)> [click](javascript:alert(2)) </script><!-- # Heading';

/** Segments with real lengths, so that a moment falls inside one of them. */
function transcript(prefix: string, count = 12) {
  return {
    formatVersion: 1 as const,
    segments: Array.from({ length: count }, (_, i) => ({
      speakerLabel: i % 2 ? 'Guest Speaker' : 'Host',
      startMs: i * 5000,
      endMs: i * 5000 + 5000,
      text: `${prefix} segment ${i}: ${i === 7 ? 'the irrigation schedule matters most in dry summers' : 'we talk about gardens and tomatoes'}.`,
    })),
  };
}

/** Episodes added to the API world for the pages. */
export function pagesEpisodes(): EpisodeRecord[] {
  return [
    episodeRecord('ep_radio1', 'ch_radio', {
      title: 'Radio episode with an enclosure',
      mediaUrl: 'https://media.example.org/radio/ep1.wav',
      link: 'https://radio.example.org/shownotes/1',
      durationMs: 600_000,
      publishedAt: '2024-02-02T10:00:00Z',
      topicIds: ['t_garden'],
      personIds: ['p_host'],
      // Long enough that a moment near the end is out of view until the page scrolls to it.
      transcript: transcript('Radio', 120),
      chapters: [
        { title: 'Beginning', startMs: 0, endMs: 30_000, moments: [{ type: 'insight', title: 'Irrigation beats fertiliser', startMs: 35_000, endMs: 40_000 }] },
        { title: 'Water', startMs: 30_000, endMs: 600_000, moments: [] },
      ],
    }),
    episodeRecord('ep_radio2', 'ch_radio', {
      title: 'Radio episode without media',
      mediaUrl: null,
      link: 'https://radio.example.org/shownotes/2',
      publishedAt: '2024-01-01T10:00:00Z',
      topicIds: ['t_garden'],
      transcript: transcript('Plain'),
      chapters: [],
    }),
    // Chapters, moments, a topic and a guest generated from the transcript, beside the creator's host (decision 27).
    enrichedEpisode('ep_radio_gen', 'ch_radio', {
      title: 'Radio episode enriched from its transcript',
      mediaUrl: 'https://media.example.org/radio/gen.wav',
      durationMs: 120_000,
      publishedAt: '2024-01-15T10:00:00Z',
      topicIds: ['t_compost'],
      personIds: ['p_host', 'p_found'],
    }),
    episodeRecord('ep_radio_draft', 'ch_radio', { title: 'Unpublished radio draft', status: 'pending' }),
    episodeRecord('ep_radio_old', 'ch_radio', { title: 'Archived radio episode', status: 'archived' }),
    episodeRecord('ep_hostile', 'ch_hostile', {
      title: HOSTILE_TITLE,
      summary: HOSTILE_TEXT,
      description: HOSTILE_TEXT,
      mediaUrl: 'javascript:alert(3)',
      link: 'javascript:alert(4)',
      thumbnail: 'javascript:alert(5)',
      transcript: {
        formatVersion: 1,
        segments: [
          { speakerLabel: '<b>Speaker</b>', startMs: 0, endMs: 5000, text: HOSTILE_TEXT },
          { speakerLabel: null, startMs: 5000, endMs: 9000, text: '\u202Eevil right-to-left override\u202C and tomatoes' },
        ],
      },
      chapters: [{ title: '</script><script>alert(6)</script>', startMs: 0, endMs: 9000, moments: [{ type: '<i>x</i>', title: HOSTILE_TEXT, startMs: 1000 }] }],
    }),
    // Older back catalogue, so the radio root has more than one page (20 a page).
    ...Array.from({ length: 21 }, (_, i) =>
      episodeRecord(`ep_radio_back${String(i).padStart(2, '0')}`, 'ch_radio', {
        title: `Back catalogue ${i}`,
        mediaUrl: null,
        publishedAt: `2023-03-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
      }),
    ),
  ];
}

/** Seeds the pages' additions into a store that holds the API world already. */
export async function seedPagesWorld(store: ApiTestStore): Promise<void> {
  await store.channels([
    { id: 'ch_radio', slug: 'radio', title: 'Radio Garden', providerType: 'rss', ownerId: 'u_owner', memberIds: ['u_member'], customDomain: 'radio.example.org' },
    { id: 'ch_hostile', slug: 'hostile', title: '<script>alert("channel")</script>', providerType: 'rss', ownerId: 'u_owner', memberIds: [] },
  ]);
  await store.episodes(pagesEpisodes());
  // The channel's names as the indexer stores them from topics.json and people.json (decision 33: per channel), the
  // last two found by enrichment.
  const names = [
    { kind: 'topic', record: { id: 't_garden', name: 'Gardening' } },
    { kind: 'person', record: { id: 'p_host', name: 'Hana Host' } },
    { kind: 'topic', record: { id: 't_compost', name: 'Compost', generated: true } },
    { kind: 'person', record: { id: 'p_found', name: 'Gus Guest', generated: true } },
  ] as const;
  for (const f of names) for (const doc of facetDocuments(f, ['ch_radio'])) await store.put('facets', facetDocId(doc.channelId, doc.id), doc);
}
