class Dataset:
    def __init__(self, rows):
        self.rows = rows

    @classmethod
    def from_list(cls, rows):
        return cls(list(rows))

    def __len__(self):
        return len(self.rows)
