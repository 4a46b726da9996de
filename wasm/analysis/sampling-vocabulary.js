// A small built-in vocabulary for the LM next-token preset: the most likely
// continuations of a prompt, in order, so a top-p or top-k cut shows words
// instead of token ids. Tokens past the list keep their ids (#123).
export const PROMPT = 'The cat sat on the';

export const WORDS = [
  'mat', 'floor', 'sofa', 'bed', 'chair', 'couch', 'rug', 'table', 'windowsill', 'roof',
  'fence', 'carpet', 'grass', 'ground', 'cushion', 'step', 'porch', 'stairs', 'desk', 'lap',
  'shelf', 'bench', 'blanket', 'pillow', 'box', 'keyboard', 'wall', 'edge', 'counter', 'doormat',
  'sill', 'balcony', 'car', 'piano', 'laptop', 'newspaper', 'book', 'stool', 'bookshelf', 'dresser',
  'ledge', 'radiator', 'washing', 'kitchen', 'garden', 'lawn', 'patio', 'deck', 'mattress', 'quilt',
  'towel', 'sweater', 'coat', 'bag', 'basket', 'suitcase', 'printer', 'television', 'dog', 'old',
  'warm', 'soft', 'front', 'back', 'top', 'other', 'new', 'big', 'little', 'same',
  'very', 'study', 'bathroom', 'hallway', 'landing', 'armchair', 'footstool', 'ottoman', 'futon', 'hammock',
  'bed,', 'mat,', 'floor,', 'mat.', 'floor.', 'bed.', 'couch.', 'sofa.', 'rug.', 'chair.',
  'cold', 'hard', 'wooden', 'red', 'blue', 'green', 'white', 'black', 'brown', 'yellow',
  'boat', 'train', 'bus', 'bike', 'wagon', 'tractor', 'truck', 'hood', 'trunk', 'seat',
  'branch', 'tree', 'log', 'stone', 'rock', 'sand', 'beach', 'dock', 'pier', 'bridge',
];

/** The word of the token ranked `rank` (0 = most likely), or null past the list. */
export function wordAt(rank) {
  return rank < WORDS.length ? WORDS[rank] : null;
}
